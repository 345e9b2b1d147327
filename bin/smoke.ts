/**
 * `npm run smoke -- --url <api-url> --token <bearer> --library-key <key> --site-key <key> --catalog-key <key>
 *  --fulfilment-key <key> [--image-url <public image URL>]`: runs the end-to-end flow (lib/smoke.ts) against a
 * deployed stage or `npm start` (without `--url`: BASE, else the default server, bin/cli-args.ts) with a key of
 * each scope, prints one line per step and exits non-zero at the first failure.
 */
import { runSmoke } from '../lib/smoke.ts';
import { API_KEY_SCOPES, type ApiKeyScope } from '../functions/auth/principal.ts';
import { BASE_USAGE, cliArgs, reachableBase } from './cli-args.ts';

const keyFlag = (scope: ApiKeyScope) => `${scope}-key` as const;
const args = cliArgs({
  url: { type: 'string' },
  token: { type: 'string' },
  ...Object.fromEntries(API_KEY_SCOPES.map((scope) => [keyFlag(scope), { type: 'string' } as const])),
  'image-url': { type: 'string' },
}) as Record<string, string | undefined>;
const { token } = args;
const keys = Object.fromEntries(API_KEY_SCOPES.map((scope) => [scope, args[keyFlag(scope)]]));
if (!token || API_KEY_SCOPES.some((scope) => !keys[scope])) {
  process.stderr.write(
    `usage: npm run smoke -- [--url <${BASE_USAGE}>] --token <bearer> ${API_KEY_SCOPES.map((scope) => `--${keyFlag(scope)} <${scope} key>`).join(' ')} [--image-url <url>]\n`,
  );
  process.exit(2);
}

const url = await reachableBase(args.url);
try {
  const result = await runSmoke({
    url,
    token,
    keys: keys as Record<ApiKeyScope, string>,
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
