/** `npm run -s token -- --user <id> [--ttl <seconds>]`: prints a bearer token signed by the local issuer. */
import { resolve } from 'node:path';
import { ensureSigningKeys, signLocalToken } from '../lib/local/signing-keys.ts';
import { cliArgs, dataDirFromEnv } from './cli-args.ts';

const args = cliArgs({ user: { type: 'string' }, ttl: { type: 'string' } });
if (!args.user) {
  process.stderr.write('usage: npm run -s token -- --user <id> [--ttl <seconds>]\n');
  process.exit(2);
}
const keys = await ensureSigningKeys(resolve(dataDirFromEnv()));
process.stdout.write(
  `${await signLocalToken(keys, { userId: args.user, ...(args.ttl ? { ttlSeconds: Number(args.ttl) } : {}) })}\n`,
);
