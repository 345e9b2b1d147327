/**
 * `npm run smoke -- --url <api-url> --token <bearer> --api-key <library key> --internal-key <internal key>
 *  [--image-url <public image URL>]`: runs the end-to-end flow (lib/smoke.ts) against a deployed stage or
 * `npm start`, prints one line per step and exits non-zero at the first failure.
 */
import { runSmoke } from '../lib/smoke.ts';
import { cliArgs } from './cli-args.ts';

const args = cliArgs({
  url: { type: 'string' },
  token: { type: 'string' },
  'api-key': { type: 'string' },
  'internal-key': { type: 'string' },
  'image-url': { type: 'string' },
});
const { url, token } = args;
const apiKey = args['api-key'];
const internalKey = args['internal-key'];
if (!url || !token || !apiKey || !internalKey) {
  process.stderr.write(
    'usage: npm run smoke -- --url <api-url> --token <bearer> --api-key <library key> --internal-key <internal key> [--image-url <url>]\n',
  );
  process.exit(2);
}

try {
  const result = await runSmoke({
    url,
    token,
    apiKey,
    internalKey,
    imageUrl: args['image-url'],
    log: (line) => process.stdout.write(`${line}\n`),
  });
  process.stdout.write(
    `smoke passed: ${result.passed.length} steps${result.skipped.length > 0 ? `, skipped: ${result.skipped.join(', ')}` : ''}\n`,
  );
} catch (error) {
  process.stderr.write(`FAIL ${(error as Error).message}\n`);
  process.exit(1);
}
