/**
 * The service's metrics are CloudWatch embedded-metric-format lines on stdout (functions/shared/metrics.ts):
 * the namespace, the `service` dimension and the units the dashboard and alarms read.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { emitMetrics, emfLine } from '../../functions/shared/metrics.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('metrics', () => {
  it('one EMF line records several metrics with their units under the service dimension', () => {
    expect(JSON.parse(emfLine({ ImagesStored: 2, ImageBytesStored: 2048 }, 1_795_000_000_000))).toEqual({
      _aws: {
        Timestamp: 1_795_000_000_000,
        CloudWatchMetrics: [
          {
            Namespace: 'PhotoCommerce',
            Dimensions: [['service']],
            Metrics: [
              { Name: 'ImagesStored', Unit: 'Count' },
              { Name: 'ImageBytesStored', Unit: 'Bytes' },
            ],
          },
        ],
      },
      service: 'photo-commerce',
      ImagesStored: 2,
      ImageBytesStored: 2048,
    });
  });

  it('emitMetrics writes one line on stdout, leaves zeros out, and writes nothing when all are zero', () => {
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
      written.push(String(chunk));
      return true;
    });
    emitMetrics({ RenditionsReady: 3, RenditionsFailed: 0 });
    emitMetrics({ EventsPublished: 0 });
    expect(written).toHaveLength(1);
    expect(written[0]?.endsWith('}\n')).toBe(true);
    const line = JSON.parse(written[0] as string) as Record<string, unknown>;
    expect(line).toMatchObject({ RenditionsReady: 3, service: 'photo-commerce' });
    expect(line).not.toHaveProperty('RenditionsFailed');
    expect(Math.abs((line._aws as { Timestamp: number }).Timestamp - Date.now())).toBeLessThan(60_000);
  });
});
