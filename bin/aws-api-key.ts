/**
 * Creates a service API key in a deployed stage and prints it once:
 *
 *   npx node bin/aws-api-key.ts --table <TableName> --usage-plan <UsagePlanId of the scope> --name <name> --scope <library|site|catalog|fulfilment>
 *
 *   npx node bin/aws-api-key.ts --table <TableName> --revoke <name>
 *
 * (both values are stack outputs; each scope has its own usage plan, output `UsagePlanId<Scope>`, e.g.
 * UsagePlanIdSite, whose name ends in -<scope>: a plan of another scope is refused). AWS credentials and region come from the usual environment (AWS_PROFILE,
 * AWS_REGION, ...). Two steps, like `npm run api-key` plus the usage plan:
 * 1. the key's record in the table (hashed; the same store module the local CLI uses);
 * 2. an API Gateway API key whose value is that hash, added to the usage plan, so the per-key throttle
 *    applies (the authorizer answers the hash as usageIdentifierKey). This step runs the AWS CLI; without
 *    it on PATH the two commands are printed to run by hand. Until it is done the key is answered 403.
 * Revoking deletes the table record and disables the key's webhooks in the same transaction (their queued
 * deliveries are not sent); the authorizer refuses the key once its cached answer expires
 * (authorizerCacheSeconds). The API Gateway key may stay; nothing names it any more.
 */
import { execFileSync } from 'node:child_process';
import { cliArgs } from './cli-args.ts';
import { revocationLine } from './key-revocation.ts';
import { parseScope, SCOPE_CHOICES } from './key-scope.ts';

const args = cliArgs({
  table: { type: 'string' },
  'usage-plan': { type: 'string' },
  name: { type: 'string' },
  scope: { type: 'string' },
  revoke: { type: 'string' },
});
const usagePlan = args['usage-plan'];
const usage =
  `usage: npx node bin/aws-api-key.ts --table <TableName> --usage-plan <UsagePlanId of the scope> --name <name> --scope <${SCOPE_CHOICES}>\n` +
  '       npx node bin/aws-api-key.ts --table <TableName> --revoke <name>\n';
const creates = Boolean(usagePlan && args.name && args.scope !== undefined);
if (!args.table || (!creates && !args.revoke)) {
  process.stderr.write(usage);
  process.exit(2);
}
const scope = creates && !args.revoke ? parseScope(args.scope as string) : undefined;
if (scope && 'error' in scope) {
  process.stderr.write(scope.error + usage);
  process.exit(2);
}
process.env.TABLE_NAME = args.table;
const { createApiKey, hashApiKey, revokeApiKey } = await import('../functions/store/api-key-store.ts');

if (args.revoke) {
  const revoked = await revokeApiKey(args.revoke);
  process.stderr.write(revocationLine(args.revoke, revoked));
  process.exit(revoked ? 0 : 1);
}

/** The plan's name ends in -<scope> (lib/constructs/api.ts); unchecked when the AWS CLI cannot answer. */
function planOfAnotherScope(keyScope: string): string | undefined {
  let name: string;
  try {
    const query = ['apigateway', 'get-usage-plan', '--usage-plan-id', usagePlan as string, '--query', 'name'];
    name = execFileSync('aws', [...query, '--output', 'text'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return undefined;
  }
  return name.trim().endsWith(`-${keyScope}`) ? undefined : name.trim();
}
const keyScope = scope!.scope;
const otherPlan = planOfAnotherScope(keyScope);
if (otherPlan !== undefined) {
  process.stderr.write(`usage plan ${usagePlan} is "${otherPlan}", not the plan of scope ${keyScope}\n`);
  process.exit(2);
}

const { apiKey } = await createApiKey(args.name as string, keyScope, Date.now());
const gatewayKeyName = `${args.table}-${args.name}`;
const createKey = [
  'apigateway',
  'create-api-key',
  '--name',
  gatewayKeyName,
  '--value',
  hashApiKey(apiKey),
  '--enabled',
  '--query',
  'id',
  '--output',
  'text',
];
const addToPlan = (keyId: string) => [
  'apigateway',
  'create-usage-plan-key',
  '--usage-plan-id',
  usagePlan as string,
  '--key-type',
  'API_KEY',
  '--key-id',
  keyId,
];
try {
  const keyId = execFileSync('aws', createKey, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  execFileSync('aws', addToPlan(keyId), { stdio: ['ignore', 'ignore', 'inherit'] });
  process.stderr.write(`registered API Gateway key ${keyId} in usage plan ${usagePlan}\n`);
} catch (error) {
  process.stderr.write(
    `The key exists in the table, but registering it with API Gateway failed (${(error as Error).message.split('\n')[0]}). Run:\n` +
      `  KEY_ID=$(aws ${createKey.join(' ')})\n  aws ${addToPlan('$KEY_ID').join(' ')}\n`,
  );
}
process.stdout.write(`${apiKey}\n`);
