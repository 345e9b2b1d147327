/**
 * The metric log (lib/local/metric-log.ts): an EMF line a handler writes on the captured stdout is recorded
 * and kept out of the output, other output passes; a bundled function's log file gives its EMF lines.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it, vi } from 'vitest';
import { emfLine } from '../../functions/shared/metrics.ts';
import { captureEmfLines, METRIC_LOG_DIR, readMetricLog, recordEmfLog } from '../../lib/local/metric-log.ts';

const dir = mkdtempSync(join(tmpdir(), 'metric-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  vi.unstubAllEnvs();
});
const service = { service: 'photo-commerce' };

it('records the EMF lines written on a captured output, with the function running, and writes only the rest', () => {
  const own = join(dir, 'stdout');
  const written: string[] = [];
  const output = {
    write: (chunk: unknown) => {
      written.push(String(chunk));
      return true;
    },
  } as Pick<NodeJS.WriteStream, 'write'>;
  // Recording off: nothing captured.
  vi.stubEnv(METRIC_LOG_DIR, '');
  captureEmfLines(() => 'create-basket', output);
  output.write(`${emfLine({ BasketsCreated: 1 }, 0)}\n`);
  expect(written).toEqual([`${emfLine({ BasketsCreated: 1 }, 0)}\n`]);
  vi.stubEnv(METRIC_LOG_DIR, own);
  const captured = { ...output };
  captureEmfLines(() => 'create-basket', captured);
  captured.write(`${emfLine({ BasketsCreated: 1, BasketLinesAdded: 2 }, 0)}\n`);
  captured.write('{"level":"INFO"}\n');
  captured.write(`${emfLine({ BasketsCreated: 1 }, 1)}\n`);
  expect(written.slice(1)).toEqual(['{"level":"INFO"}\n']);
  expect(readMetricLog(own)).toEqual([
    { namespace: 'PhotoCommerce', name: 'BasketsCreated', dimensions: service, function: 'create-basket' },
    { namespace: 'PhotoCommerce', name: 'BasketLinesAdded', dimensions: service, function: 'create-basket' },
  ]);
});

it("takes a bundled function's EMF lines from its log file, once each", () => {
  const own = join(dir, 'bundles');
  const logFile = join(dir, 'webhook-deliver.log');
  const line = emfLine({ WebhooksDisabled: 1 }, 0);
  writeFileSync(logFile, `START\n${line}\n{"level":"INFO","message":"webhook disabled"}\n${line}\n`);
  vi.stubEnv(METRIC_LOG_DIR, '');
  recordEmfLog(logFile, 'webhook-deliver');
  expect(readMetricLog(own)).toEqual([]);
  vi.stubEnv(METRIC_LOG_DIR, own);
  recordEmfLog(logFile, 'webhook-deliver');
  expect(readMetricLog(own)).toEqual([
    { namespace: 'PhotoCommerce', name: 'WebhooksDisabled', dimensions: service, function: 'webhook-deliver' },
  ]);
});
