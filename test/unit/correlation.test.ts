/**
 * Each log line carries the correlation id of the work it is written in (functions/shared/correlation.ts), also
 * when the work of two requests interleaves in one invocation, as a consumer's records of several requests do;
 * a line outside any such work carries none.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { currentCorrelationId, withCorrelationId } from '../../functions/shared/correlation.ts';
import { logger } from '../../functions/shared/powertools.ts';

const lines: Record<string, unknown>[] = [];
// Powertools writes ERROR lines, the level tests log at, to stderr.
const write = process.stderr.write.bind(process.stderr);
beforeEach(() => {
  process.stderr.write = ((chunk: string) => {
    lines.push(
      ...chunk
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    );
    return true;
  }) as typeof process.stderr.write;
});
afterEach(() => {
  process.stderr.write = write;
});

it('gives each line the id of the work writing it, however works interleave', async () => {
  const tick = () => new Promise((resolve) => setTimeout(resolve, 1));
  const work = (id: string) =>
    withCorrelationId(id, async () => {
      for (const step of [1, 2, 3]) {
        await tick();
        logger.error('step', { work: id, step });
      }
      return currentCorrelationId();
    });
  expect(await Promise.all([work('request-a'), work('request-b')])).toEqual(['request-a', 'request-b']);
  logger.error('outside');
  const steps = lines.filter((line) => line.message === 'step');
  expect(steps).toHaveLength(6);
  for (const line of steps) expect(line.correlation_id).toBe(line.work);
  expect(lines.find((line) => line.message === 'outside')).not.toHaveProperty('correlation_id');
  expect(withCorrelationId(undefined, currentCorrelationId)).toBeUndefined();
});
