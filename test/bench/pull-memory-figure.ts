/** Figure 5b: the peak RSS growth of a 200 MB pull, measured by pull-memory.ts in this process. */
import { measurePullMemory } from './pull-memory.ts';
import type { Figure } from './support/report.ts';
import { mib } from './support/stats.ts';

const LIMIT_MB = 64;

export async function run(): Promise<Figure[]> {
  const result = await measurePullMemory({ imageMb: 200, limitMb: LIMIT_MB });
  return [
    {
      title: '5b. Uploads: memory of a 200 MB pull',
      howToRead:
        'test/bench/pull-memory.ts starts the service in its own process, warms it with one pull and a full GC, then pulls a 200 MB image from a loopback server while sampling the resident set every 5 ms. ' +
        `The pull streams (fetch → type sniffing → MD5 and size → S3 multipart upload), so the growth must stay under ${LIMIT_MB} MB whatever the image size; the stored size and MD5 must match what was sent.`,
      columns: ['Image', 'RSS before', 'Peak RSS', 'Peak growth', 'Time', 'Stored size and MD5 match'],
      rows: [
        [
          mib(result.imageBytes),
          mib(result.baselineRssBytes),
          mib(result.peakRssBytes),
          mib(result.peakGrowthBytes),
          `${result.seconds.toFixed(1)} s`,
          result.verified ? 'yes' : 'NO',
        ],
      ],
      checks: [
        {
          name: 'pull of 200 MB: peak RSS growth (MiB)',
          measured: result.peakGrowthBytes / MB,
          limit: LIMIT_MB,
          kind: 'max',
          shown: mib(result.peakGrowthBytes),
        },
        {
          name: 'pull of 200 MB: stored size and MD5 match',
          measured: result.verified ? 1 : 0,
          limit: 1,
          kind: 'equal',
          shown: result.verified ? 'yes' : 'no',
        },
      ],
    },
  ];
}

const MB = 1024 * 1024;
