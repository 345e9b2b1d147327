/**
 * `npm run -s api-key -- --name <name> --scope <library|internal>`: creates an API key and prints it once.
 * `--list` lists names and scopes; `--revoke <name>` revokes a key.
 */
import { cliArgs } from './cli-args.ts';
import { useLocalStore } from './local-store.ts';

const args = cliArgs({
  name: { type: 'string' },
  scope: { type: 'string' },
  list: { type: 'boolean' },
  revoke: { type: 'string' },
});
const usage = 'usage: npm run -s api-key -- --name <name> --scope <library|internal> | --list | --revoke <name>\n';
if (!args.list && !args.revoke && (!args.name || (args.scope !== 'library' && args.scope !== 'internal'))) {
  process.stderr.write(usage);
  process.exit(2);
}

const storage = await useLocalStore();
const store = await import('../functions/store/api-key-store.ts');
let exitCode = 0;
try {
  if (args.list) {
    for (const key of await store.listApiKeys())
      process.stdout.write(`${key.name}\t${key.scope}\t${key.keyId}\t${new Date(key.createdAt).toISOString()}\n`);
  } else if (args.revoke) {
    if (!(await store.revokeApiKey(args.revoke))) {
      process.stderr.write(`no API key named "${args.revoke}"\n`);
      exitCode = 1;
    }
  } else {
    const { apiKey } = await store.createApiKey(args.name as string, args.scope as 'library' | 'internal', Date.now());
    process.stdout.write(`${apiKey}\n`);
  }
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  exitCode = 1;
} finally {
  await storage.close();
}
process.exit(exitCode);
