/**
 * Every function's log lines carry its own Lambda context, as in AWS, also where the local stack runs them
 * all in one process (lib/local/source-invocations.ts): a request's refusal names its function, and the
 * renditions the queue stand-in delivers next name theirs, not the request's.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { inProcessIt } from '../support/bundles.ts';
import type { TestService } from '../support/service.ts';
import { png } from '../support/images.ts';
import { pushFiles } from '../support/library-push.ts';

// Before any service module loads (hence the dynamic import below): the lines at INFO are the ones looked at.
process.env.POWERTOOLS_LOG_LEVEL = 'INFO';

let service: TestService;
let apiKey: string;
const lines: Record<string, unknown>[] = [];
let restore: (() => void) | undefined;

beforeAll(async () => {
  const { startTestService } = await import('../support/service.ts');
  service = await startTestService();
  apiKey = await service.apiKey('local-logs', 'library');
  const original = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
    for (const line of text.split('\n'))
      if (line.startsWith('{')) lines.push(JSON.parse(line) as Record<string, unknown>);
    return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write;
  restore = () => {
    process.stdout.write = original;
  };
}, 60_000);
afterAll(async () => {
  restore?.();
  await service?.close();
});

inProcessIt('a request and then a renditions delivery each log with their own function name', async () => {
  const { itemGuids } = await pushFiles(service.url, apiKey, [{ bytes: png(3, 2, 7) }]);
  const refused = await service.request('GET', `/library/${'0'.repeat(32)}`, { apiKey });
  expect(refused.status).toBe(404);
  await service.drainEvents();
  const refusal = lines.find((line) => line.message === 'request refused' && line.status === 404);
  expect(refusal).toMatchObject({ function_name: 'get-library-item' });
  const renditions = lines.find((line) => line.message === 'renditions' && line.itemGuid === itemGuids[0]);
  expect(renditions).toMatchObject({ function_name: 'make-renditions', outcome: 'Ready' });
  expect(renditions?.function_request_id).not.toBe(refusal?.function_request_id);
});
