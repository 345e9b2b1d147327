/**
 * Figure 10: how soon a webhook delivery follows the commit that wrote its event, on the local stack as
 * `npm start` runs it (the table stream read every 200 ms, the publisher, the fan-out queue, the deliveries
 * queue, the delivery function; handlers from source). A checkout URL issued through the API commits a
 * BasketCheckedOut outbox record; the time from its answer to the signed POST reaching a loopback receiver
 * is one sample. Sequential, so each sample is one event's path and not a queue's backlog.
 */
import { startTestService } from '../support/service.ts';
import { registerWebhook, startWebhookReceiver, until } from '../support/webhooks.ts';
import type { Figure } from './support/report.ts';
import { median, percentile } from './support/stats.ts';

const SAMPLES = 60;
const WARM_UP = 5;
const LIMIT_MS = 2_000;

export async function run(): Promise<Figure[]> {
  const receiver = await startWebhookReceiver();
  const service = await startTestService({
    env: { WEBHOOK_ALLOW_LOOPBACK: 'true', POWERTOOLS_LOG_LEVEL: 'ERROR' },
    renditions: false,
  });
  try {
    const siteKey = await service.apiKey('bench-latency-site', 'site');
    const token = await service.token('bench-latency');
    await registerWebhook(service, siteKey, `${receiver.url}/checkouts`, ['BasketCheckedOut']);
    const basket = (await service.request('POST', '/basket', { token })).body.Guid as string;
    const ProjectGuid = await service.project(9.5);
    const line = await service.request('POST', `/basket/${basket}/line`, { token, json: { ProjectGuid, Quantity: 1 } });
    if (line.status !== 200) throw new Error(`line: ${line.status} ${line.text}`);

    const latencies: number[] = [];
    for (let sample = 0; sample < WARM_UP + SAMPLES; sample++) {
      // A basket checked out again unchanged answers its open checkout (no new event): each sample changes it.
      const changed = await service.request('PUT', `/basket/${basket}/line/1`, {
        token,
        json: { ProjectGuid, Quantity: 2 + (sample % 2) },
      });
      if (changed.status !== 200) throw new Error(`line change: ${changed.status} ${changed.text}`);
      const before = receiver.to('/checkouts').length;
      const checkout = await service.request('POST', `/basket/${basket}/checkout`, { token });
      if (checkout.status !== 200) throw new Error(`checkout: ${checkout.status} ${checkout.text}`);
      const committedAt = Date.now();
      const [delivery] = await until(
        'the delivery',
        () => receiver.to('/checkouts').length > before && receiver.to('/checkouts').slice(before),
        30_000,
      );
      if (sample >= WARM_UP) latencies.push(delivery!.at - committedAt);
    }
    const p95 = percentile(latencies, 95);
    return [
      {
        title: '10. Webhooks: from the commit to the delivery',
        howToRead:
          `${SAMPLES} checkouts after ${WARM_UP} to warm up, one at a time, each answered by POST /basket/{guid}/checkout (its BasketCheckedOut outbox record committed) and then delivered to a subscribed webhook's loopback receiver; a sample is the time from the answer to the signed POST's arrival. ` +
          'It includes the table stream poll (every 200 ms, as `npm start`), the publisher, both queues and the delivery function. ' +
          `The budget: the 95th percentile at most ${LIMIT_MS} ms.`,
        columns: ['Statistic', 'ms'],
        rows: [
          ['median', median(latencies).toFixed(0)],
          ['p95', p95.toFixed(0)],
          ['max', Math.max(...latencies).toFixed(0)],
        ],
        checks: [{ name: 'commit to webhook delivery p95 (ms)', measured: p95, limit: LIMIT_MS, kind: 'max' }],
      },
    ];
  } finally {
    await service.close();
    await receiver.close();
  }
}
