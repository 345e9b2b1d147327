/**
 * The one place that reads and writes API keys. Only a SHA-256 hash of a key is stored; the key itself
 * is shown once when it is created. Two items per key: the key item, found by hash (the authorizer's
 * single GetItem), and a name item that makes names unique and lets keys be listed and revoked by name. A
 * revocation takes the key's webhooks with it (webhook-store.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import { API_KEYS_INDEX_PK, apiKeyKey, apiKeyNameKey } from './keys.ts';
import { queryEach } from './query.ts';
import { toItem } from './table.ts';
import { MAX_TRANSACTION_ACTIONS, remove, transact, type WriteAction } from './transaction.ts';
import { revocationActions } from './webhook-store.ts';
import { writeIf } from './writes.ts';
import { isApiKeyScope, type ApiKeyScope } from '../auth/principal.ts';

export interface ApiKeyRecord {
  keyId: string;
  name: string;
  scope: ApiKeyScope;
  createdAt: number;
}

export const API_KEY_FORM = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const hashApiKey = (apiKey: string): string => createHash('sha256').update(apiKey.toLowerCase()).digest('hex');

export class DuplicateApiKeyNameError extends Error {}

/** Creates a key and returns it; the caller shows it once, it cannot be read back. */
export async function createApiKey(
  name: string,
  scope: ApiKeyScope,
  now: number,
): Promise<{ apiKey: string; record: ApiKeyRecord }> {
  const apiKey = randomUUID();
  const hash = hashApiKey(apiKey);
  const record: ApiKeyRecord = { keyId: hash.slice(0, 12), name, scope, createdAt: now };
  const named = await writeIf(
    new PutCommand({
      TableName: config.tableName,
      Item: toItem(apiKeyNameKey(name), 'ApiKeyName', { GSI1PK: API_KEYS_INDEX_PK, GSI1SK: name, hash, ...record }),
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
  if (!named) throw new DuplicateApiKeyNameError(`an API key named "${name}" exists already`);
  await dynamo.send(new PutCommand({ TableName: config.tableName, Item: toItem(apiKeyKey(hash), 'ApiKey', record) }));
  return { apiKey, record };
}

/**
 * The authorizer's lookup: one GetItem by hash. A key of a retired scope (`internal`, split into `site`,
 * `catalog` and `fulfilment`) is no key: it opens nothing and is refused like an unknown one.
 */
export async function findApiKey(apiKey: string): Promise<ApiKeyRecord | undefined> {
  if (!API_KEY_FORM.test(apiKey)) return undefined;
  const result = await dynamo.send(new GetCommand({ TableName: config.tableName, Key: apiKeyKey(hashApiKey(apiKey)) }));
  if (!result.Item) return undefined;
  const { keyId, name, scope, createdAt } = result.Item as StoredApiKey;
  return isApiKeyScope(scope) ? { keyId, name, scope, createdAt } : undefined;
}

/** A key as stored: its scope may be one that no longer exists (listed, so that it can be revoked). */
export type StoredApiKey = Omit<ApiKeyRecord, 'scope'> & { scope: string };

export async function listApiKeys(): Promise<StoredApiKey[]> {
  const records: StoredApiKey[] = [];
  await queryEach(
    {
      TableName: config.tableName,
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': API_KEYS_INDEX_PK },
    },
    (page) => {
      for (const item of page.Items ?? []) {
        const { keyId, name, scope, createdAt } = item as StoredApiKey;
        records.push({ keyId, name, scope, createdAt });
      }
    },
  );
  return records;
}

/** Tries of a revocation whose key's webhooks its owner changed meanwhile (each read afresh). */
const REVOKE_TRIES = 5;

/**
 * Revokes the key with that name and disables its webhooks, in one transaction: the key item, its name
 * item, every enabled webhook of the key (with its index items) and the revoked mark its queued deliveries
 * check (webhook-store.ts); past 100 actions (20 site webhooks of 4 event types), the key and the mark first,
 * then the webhooks (disableInGroups). Answers how many webhooks it disabled; undefined when there is no such key.
 */
export async function revokeApiKey(name: string, now = Date.now()): Promise<{ webhooksDisabled: number } | undefined> {
  for (let tries = 1; ; tries++) {
    const result = await dynamo.send(
      new GetCommand({ TableName: config.tableName, Key: apiKeyNameKey(name), ConsistentRead: true }),
    );
    if (!result.Item) return undefined;
    const { hash, keyId } = result.Item as { hash: string; keyId: string };
    const { mark, webhooks } = await revocationActions(keyId, now);
    const revocation = [
      remove(apiKeyNameKey(name), { if: '#hash = :hash', names: { '#hash': 'hash' }, values: { ':hash': hash } }),
      remove(apiKeyKey(hash)),
      mark,
    ];
    const disabling = webhooks.flat();
    const whole = revocation.length + disabling.length <= MAX_TRANSACTION_ACTIONS;
    const outcome = await transact(whole ? [...revocation, ...disabling] : revocation);
    if (outcome.committed) {
      return { webhooksDisabled: whole ? webhooks.length : await disableInGroups(webhooks) };
    }
    if (tries === REVOKE_TRIES) throw new Error(`the webhooks of API key "${name}" kept changing; revoke it again`);
  }
}

/**
 * A key with more webhook writes than one transaction holds: revoked first (no delivery is sent from then
 * on: each checks the mark), its webhooks disabled after, each with its index items in one transaction. One
 * that changed meanwhile (a delivery disabled it) is left as it is; one left enabled by a crash or a failed
 * transaction here is disabled by its next delivery, which finds the mark. Settled one by one: the key is
 * revoked already, so one failure must not hide how many were disabled.
 */
async function disableInGroups(webhooks: WriteAction[][]): Promise<number> {
  const outcomes = await Promise.allSettled(webhooks.map((actions) => transact(actions)));
  return outcomes.filter((outcome) => outcome.status === 'fulfilled' && outcome.value.committed).length;
}
