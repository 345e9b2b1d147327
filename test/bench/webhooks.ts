/**
 * Figure 9: what a webhook delivery costs beyond the POST itself. One delivery attempt as the delivery
 * function makes it (sign with `standardwebhooks`, vet the URL with the address policy, POST to the pinned
 * address on a connection of its own, read the status) against a bare `fetch` POST of the same body to the
 * same loopback receiver, side by side in the same run (ABBA rounds). No storage and no KMS: those are the
 * delivery function's reads, the same for any way of sending.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deliveryBody } from '../../functions/domain/webhook-delivery.ts';
import { systemResolver } from '../../functions/library/pull-target.ts';
import { newWebhookSecret } from '../../functions/webhooks/webhook-secrets.ts';
import { sendDelivery } from '../../functions/webhooks/send-delivery.ts';
import type { Figure } from './support/report.ts';
import { median, pairedRatio, sideBySide, timed } from './support/stats.ts';

const ROUNDS = 400;
const WARM_UP = 50;
const LIMIT = 1.2;

export async function run(): Promise<Figure[]> {
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const body = deliveryBody({
    type: 'OrderCreated',
    time: Date.now(),
    data: { OrderGuid: '0123456789abcdef0123456789abcdef' },
  });
  const secrets = [newWebhookSecret()];
  const policy = { allowLoopback: true, resolve: systemResolver, timeoutMs: 10_000 };
  const delivery = async () => {
    const result = await sendDelivery(url, { id: 'bench', timestamp: new Date(), body }, secrets, policy);
    if (!('status' in result) || result.status !== 204) throw new Error(`delivery failed: ${JSON.stringify(result)}`);
  };
  const bareFetch = async () => {
    const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    await response.arrayBuffer();
    if (response.status !== 204) throw new Error(`fetch answered ${response.status}`);
  };
  try {
    await sideBySide(WARM_UP, delivery, bareFetch);
    const samples = await sideBySide(
      ROUNDS,
      () => timed(delivery),
      () => timed(bareFetch),
    );
    const ratio = pairedRatio(samples);
    return [
      {
        title: '9. Webhooks: one signed delivery against a bare fetch',
        howToRead:
          `${ROUNDS} rounds after ${WARM_UP} to warm up, each a delivery attempt as webhook-deliver makes it (signature by standardwebhooks, the URL vetted, a POST on a connection pinned to the vetted address, the status read) and a bare fetch POST of the same ${body.length}-byte body to the same loopback receiver, in alternating order. ` +
          `The budget: the median of the per-round ratios at most ${LIMIT}.`,
        columns: ['What', 'Median (ms)'],
        rows: [
          ['signed delivery attempt', median(samples.candidate).toFixed(3)],
          ['bare fetch', median(samples.baseline).toFixed(3)],
          ['ratio (median of rounds)', ratio.toFixed(2)],
        ],
        checks: [{ name: 'webhook delivery / bare fetch (median ratio)', measured: ratio, limit: LIMIT, kind: 'max' }],
      },
    ];
  } finally {
    receiver.close();
  }
}
