/**
 * The local Lambda runtime stand-in (lib/local/bundles/): a function's process sees exactly the environment
 * it is given, loads its handler as Lambda does, answers results and errors, and a timeout or a crash fails
 * the invocation with Lambda's error and a fresh process takes the next one.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { functionProcess, InvocationError } from '../../lib/local/bundles/function-process.ts';

const assetDir = mkdtempSync(join(tmpdir(), 'function-asset-'));
writeFileSync(
  join(assetDir, 'index.mjs'),
  `let invocations = 0;
export const handler = async (event, context) => {
  invocations++;
  if (event.kind === 'env') return { env: { ...process.env }, cwd: process.cwd() };
  if (event.kind === 'throw') throw new TypeError('bad input');
  if (event.kind === 'hang') return new Promise(() => {});
  if (event.kind === 'wait') await new Promise((resolve) => setTimeout(resolve, 300));
  if (event.kind === 'exit') process.exit(3);
  return { invocations, remaining: context.getRemainingTimeInMillis(), name: context.functionName };
};`,
);
afterAll(() => rmSync(assetDir, { recursive: true, force: true }));

const start = (timeoutSeconds = 5, maxEnvironments = 4) =>
  functionProcess({
    maxEnvironments,
    functionName: 'photo-commerce-local-probe',
    assetDir,
    timeoutSeconds,
    memorySize: 256,
    environment: { _HANDLER: 'index.handler', AWS_REGION: 'us-east-1', ONLY_THIS: 'yes' },
    logFile: join(assetDir, 'probe.log'),
  });

describe('a function run from its asset', () => {
  it('sees exactly the environment it is given, in its asset folder, with its context', async () => {
    const fn = start();
    try {
      const { env, cwd } = (await fn.invoke({ kind: 'env' })) as { env: Record<string, string>; cwd: string };
      // Node itself may add nothing a handler reads; the parent's variables never arrive.
      expect(Object.keys(env).sort()).toEqual(['AWS_REGION', 'ONLY_THIS', '_HANDLER']);
      expect(cwd).toBe(assetDir);
      const answer = (await fn.invoke({})) as { invocations: number; remaining: number; name: string };
      expect(answer.name).toBe('photo-commerce-local-probe');
      expect(answer.invocations).toBe(2);
      expect(answer.remaining).toBeGreaterThan(0);
      expect(answer.remaining).toBeLessThanOrEqual(5000);
    } finally {
      await fn.close();
    }
  });

  it('runs one invocation at a time per environment, starting another while every one is busy', async () => {
    const fn = start(5, 2);
    try {
      // Two at once: two environments, each on its first invocation.
      const first = (await Promise.all([fn.invoke({ kind: 'wait' }), fn.invoke({ kind: 'wait' })])) as unknown[];
      expect(first).toEqual([expect.objectContaining({ invocations: 1 }), expect.objectContaining({ invocations: 1 })]);
      // Four at once with two environments: the last two wait for the first two, and reuse them.
      const counts = (
        (await Promise.all([1, 2, 3, 4].map(() => fn.invoke({ kind: 'wait' })))) as { invocations: number }[]
      )
        .map((answer) => answer.invocations)
        .sort();
      expect(counts).toEqual([2, 2, 3, 3]);
    } finally {
      await fn.close();
    }
  });

  it("answers a handler's error as Lambda reports it, and keeps the process", async () => {
    const fn = start();
    try {
      await expect(fn.invoke({ kind: 'throw' })).rejects.toMatchObject({
        errorType: 'TypeError',
        message: 'bad input',
      });
      expect(((await fn.invoke({})) as { invocations: number }).invocations).toBe(2);
    } finally {
      await fn.close();
    }
  });

  it('ends the process of an invocation past its timeout; the next one is a cold start', async () => {
    const fn = start(1, 1);
    try {
      const hung = fn.invoke({ kind: 'hang' });
      // Waits for the only environment, then gets a new one when the hung one is ended.
      const next = fn.invoke({});
      await expect(hung).rejects.toBeInstanceOf(InvocationError);
      await expect(hung).rejects.toMatchObject({
        errorType: 'Sandbox.Timedout',
        message: /Task timed out after 1.00 seconds/,
      });
      expect(((await next) as { invocations: number }).invocations).toBe(1);
    } finally {
      await fn.close();
    }
  });

  it('fails the invocation whose process exits, and starts a new one for the next', async () => {
    const fn = start();
    try {
      await expect(fn.invoke({ kind: 'exit' })).rejects.toMatchObject({ errorType: 'Runtime.ExitError' });
      expect(((await fn.invoke({})) as { invocations: number }).invocations).toBe(1);
      expect(readFileSync(join(assetDir, 'probe.log'), 'utf8')).toBe('');
    } finally {
      await fn.close();
    }
  });
});
