/**
 * `npm run -s api-key -- --name <name> --scope <library|site|catalog|fulfilment>`: creates an API key and
 * prints it once. `--list` lists names and scopes; `--revoke <name>` revokes a key and
 * disables its webhooks, saying how many.
 */
import { cliArgs } from './cli-args.ts';
import { revocationLine } from './key-revocation.ts';
import { parseScope, SCOPE_CHOICES } from './key-scope.ts';
import { useLocalStore } from './local-store.ts';

const args = cliArgs({
  name: { type: 'string' },
  scope: { type: 'string' },
  list: { type: 'boolean' },
  revoke: { type: 'string' },
});
const usage = `usage: npm run -s api-key -- --name <name> --scope <${SCOPE_CHOICES}> | --list | --revoke <name>\n`;
const creates = !args.list && !args.revoke;
if (creates && (!args.name || args.scope === undefined)) {
  process.stderr.write(usage);
  process.exit(2);
}
const scope = creates ? parseScope(args.scope as string) : undefined;
if (scope && 'error' in scope) {
  process.stderr.write(scope.error + usage);
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
    const revoked = await store.revokeApiKey(args.revoke);
    process.stderr.write(revocationLine(args.revoke, revoked));
    if (!revoked) exitCode = 1;
  } else {
    const { apiKey } = await store.createApiKey(args.name as string, scope!.scope, Date.now());
    process.stdout.write(`${apiKey}\n`);
  }
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  exitCode = 1;
} finally {
  await storage.close();
}
process.exit(exitCode);
