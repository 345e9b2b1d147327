/**
 * The functions emit their metrics in tests as in AWS (vitest.config.ts leaves them on): each EMF line a
 * handler writes in this worker goes to the run's metric log instead of the output (lib/local/metric-log.ts),
 * also where a test calls a handler without the local stack.
 */
import { captureEmfLines } from '../../lib/local/metric-log.ts';
import { runningFunction } from '../../lib/local/source-invocations.ts';

captureEmfLines(runningFunction);
