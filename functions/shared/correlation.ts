/**
 * The correlation id of the work running here: the API request id (`x-amzn-RequestId`) of the request that
 * caused it. A request's handler runs under its own id; what it writes carries the id on (outbox records and
 * the other expiring records, store/table.ts; delivery messages, webhooks/delivery-queue.ts), and the
 * functions that take that work up later (publisher, renditions, fan-out, delivery, sweeper) run each record
 * under the id it carries. Every log line written meanwhile has it as `correlation_id` (shared/powertools.ts).
 *
 * An AsyncLocalStorage, not a module variable nor the invocation's store: one process runs several invocations
 * at once (Lambda Managed Instances, `npm start`), and one invocation of a queue or stream consumer works on
 * records caused by different requests, so the id belongs to the async work of one request or one record.
 * Passing it as an argument instead would thread it through every service and store that writes on the way.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const running = new AsyncLocalStorage<string>();

/** Runs `work` as work of `correlationId`; without one (a record written before ids were kept), as it is. */
export const withCorrelationId = <T>(correlationId: string | undefined, work: () => T): T =>
  correlationId === undefined ? work() : running.run(correlationId, work);

/** The correlation id of the work running here, if any. */
export const currentCorrelationId = (): string | undefined => running.getStore();
