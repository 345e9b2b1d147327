/**
 * How many invocations the renditions, webhook fan-out and webhook delivery queues' event sources run at once (`maxConcurrency`
 * of an SQS event source, which AWS takes from 2 to 1000). Unbounded, a burst of uploads or events would scale
 * its consumer toward the account's 1,000 concurrent executions and throttle the API; bounded, the burst waits
 * in its queue. The defaults leave the API most of the account's default quota: renditions 100 (a whole vCPU
 * each, about a second per photo: 100 photos a second), the fan-out 20 (a Query and a SendMessageBatch per
 * event: hundreds of events a second), the deliveries 20 (slow partners wait in the queue). Each is a stack setting (lib/service-config.ts, docs/deploy.md) and,
 * set in its environment, the bound of `npm start`'s local queue (lib/local/service.ts).
 */
export const CONSUMER_CONCURRENCY = {
  renditions: { context: 'renditionsMaxConcurrency', env: 'RENDITIONS_MAX_CONCURRENCY', fallback: 100 },
  webhookFanout: { context: 'webhookFanoutMaxConcurrency', env: 'WEBHOOK_FANOUT_MAX_CONCURRENCY', fallback: 20 },
  webhookDeliveries: { context: 'webhookMaxConcurrency', env: 'WEBHOOK_MAX_CONCURRENCY', fallback: 20 },
} as const;

/** The range AWS takes for an SQS event source's maximum concurrency. */
export const MAX_CONCURRENCY_RANGE = { min: 2, max: 1000 } as const;

/** The bound `text` sets for `consumer` (undefined: its default); anything but a whole number in range is refused. */
export function maxConcurrency(consumer: keyof typeof CONSUMER_CONCURRENCY, text: string | undefined): number {
  const { context, env, fallback } = CONSUMER_CONCURRENCY[consumer];
  const value = Number(text ?? fallback);
  const { min, max } = MAX_CONCURRENCY_RANGE;
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`${context} (${env}) must be a whole number from ${min} to ${max}, got ${text}`);
  return value;
}
