/**
 * The local queue stand-in (lib/local/event-delivery.ts) works on at most its event source's maximum
 * concurrency at once, as the SQS event source bounds its function in AWS (lib/consumer-concurrency.ts):
 * messages beyond it wait in the queue and are all handled once earlier ones finish.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startLocalQueue, type QueueHandler } from '../../lib/local/event-delivery.ts';

const folder = mkdtempSync(join(tmpdir(), 'photo-commerce-queue-bound-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A handler that holds each message until released, counting how many it holds at once. */
function heldHandler() {
  const held: (() => void)[] = [];
  let running = 0;
  let peak = 0;
  const handled: string[] = [];
  let arrived: () => void = () => {};
  const handler: QueueHandler = async (event) => {
    running++;
    peak = Math.max(peak, running);
    await new Promise<void>((release) => {
      held.push(release);
      arrived();
    });
    running--;
    handled.push(...event.Records.map((record) => record.body));
    return { batchItemFailures: [] };
  };
  /** Resolves once `count` messages are held at the same time. */
  const holding = (count: number) =>
    new Promise<void>((resolve) => {
      arrived = () => {
        if (held.length >= count) resolve();
      };
      arrived();
    });
  return { handler, held, holding, handled, peak: () => peak };
}

it.each([3, 5])('works on at most its bound of %i messages at a time', async (bound) => {
  const { handler, held, holding, handled, peak } = heldHandler();
  const queue = startLocalQueue({
    name: `bounded-${bound}`,
    handler: 'held',
    maxReceiveCount: 3,
    folder: join(folder, String(bound)),
    loadHandler: async () => handler,
    concurrency: bound,
  });
  const bodies = Array.from({ length: bound * 3 }, (_, n) => `message-${n}`);
  for (const body of bodies) queue.send(body);
  await holding(bound);
  // Give the queue every chance to start more: the next turns of the event loop start none.
  await new Promise((resolve) => setImmediate(resolve));
  expect(held).toHaveLength(bound);
  // Released one by one, each freed slot takes the next waiting message, never more than the bound.
  const drained = queue.drain();
  while (handled.length < bodies.length) {
    held.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
  await drained;
  expect(peak()).toBe(bound);
  expect(handled.sort()).toEqual([...bodies].sort());
  await queue.close();
});
