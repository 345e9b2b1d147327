/**
 * The one place that reads and writes webhooks (domain/webhook.ts). A webhook lives in its API key's
 * partition, beside the key's count of webhooks; for each event type it is subscribed to while enabled, an
 * index item in that type's partition names it (and what the fan-out needs: its owner and scope), so the
 * subscribers of an event are one Query, never a Scan. Every change writes the webhook, its index items and
 * the count in one transaction, conditional on the revision it read.
 */
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import {
  disabled,
  KEY_REVOKED,
  MAX_WEBHOOKS_PER_KEY,
  subscribedTypes,
  type Webhook,
  type WebhookSubscriber,
} from '../domain/webhook.ts';
import {
  WEBHOOK_PREFIX,
  webhookCountKey,
  webhookKey,
  webhookOwnerPk,
  webhookSubscriptionKey,
  webhookSubscriptionPk,
} from './keys.ts';
import { queryEach } from './query.ts';
import { writeIf } from './writes.ts';
import { fromItem } from './table.ts';
import { create, put, remove, transact, update, type WriteAction } from './transaction.ts';

const WEBHOOK_TYPE = 'Webhook';
const SUBSCRIPTION_TYPE = 'WebhookSubscription';

const subscriberOf = (webhook: Webhook): WebhookSubscriber => ({
  webhookId: webhook.webhookId,
  ownerKeyId: webhook.ownerKeyId,
  ownerScope: webhook.ownerScope,
  ...(webhook.pausedAt === undefined ? {} : { pausedAt: webhook.pausedAt }),
});

const subscriptionKey = (type: string, webhook: Webhook) => webhookSubscriptionKey(type, webhook.webhookId);

/**
 * The index items that differ between two states of a webhook: put the new ones (all of them when its pause
 * began or ended, which they carry), delete the dropped ones.
 */
function subscriptionActions(before: Webhook | undefined, after: Webhook | undefined): WriteAction[] {
  const was = new Set<string>(before ? subscribedTypes(before) : []);
  const is = new Set<string>(after ? subscribedTypes(after) : []);
  const pauseChanged = before?.pausedAt !== after?.pausedAt;
  return [
    ...[...was].filter((type) => !is.has(type)).map((type) => remove(subscriptionKey(type, before as Webhook))),
    ...[...is]
      .filter((type) => pauseChanged || !was.has(type))
      .map((type) => put(subscriptionKey(type, after as Webhook), SUBSCRIPTION_TYPE, subscriberOf(after as Webhook))),
  ];
}

const sameRevision = (revision: number) => ({
  if: '#revision = :revision',
  names: { '#revision': 'revision' },
  values: { ':revision': revision },
});

/** Creates the webhook unless its key has MAX_WEBHOOKS_PER_KEY already: false then, and nothing is written. */
export async function createWebhook(webhook: Webhook): Promise<boolean> {
  const outcome = await transact([
    update(webhookCountKey(webhook.ownerKeyId), 'ADD #count :one', {
      values: { ':one': 1 },
      condition: {
        if: 'attribute_not_exists(#count) OR #count < :max',
        names: { '#count': 'count' },
        values: { ':max': MAX_WEBHOOKS_PER_KEY },
      },
    }),
    create(webhookKey(webhook.ownerKeyId, webhook.webhookId), WEBHOOK_TYPE, webhook),
    ...subscriptionActions(undefined, webhook),
  ]);
  return outcome.committed;
}

export async function getWebhook(ownerKeyId: string, webhookId: string): Promise<Webhook | undefined> {
  const result = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: webhookKey(ownerKeyId, webhookId), ConsistentRead: true }),
  );
  return result.Item ? fromItem<Webhook>(result.Item) : undefined;
}

/** The key's webhooks, oldest first: one Query, at most MAX_WEBHOOKS_PER_KEY items. */
export async function listWebhooks(ownerKeyId: string): Promise<Webhook[]> {
  const result = await dynamo.send(
    new QueryCommand({
      TableName: config.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': webhookOwnerPk(ownerKeyId), ':prefix': WEBHOOK_PREFIX },
      ConsistentRead: true,
      Limit: MAX_WEBHOOKS_PER_KEY,
    }),
  );
  return (result.Items ?? []).map((item) => fromItem<Webhook>(item)).sort((a, b) => a.createdAt - b.createdAt);
}

/** `attribute = value` as read, or its absence: a condition on one attribute the service writes without a revision. */
const asReadAttribute = (name: string, value: number | undefined) =>
  value === undefined
    ? { if: `attribute_not_exists(${name})`, values: {} }
    : { if: `${name} = :${name}`, values: { [`:${name}`]: value } };

/**
 * The webhook as `read` left it: its revision, its failure streak and its pause, which deliveries record
 * without a revision (recordDeliveryStreak, pauseWebhook, resumeWebhook); a write over one recorded
 * meanwhile would erase it.
 */
const asRead = (read: Webhook) => {
  const streak = asReadAttribute('failingSince', read.failingSince);
  const pause = asReadAttribute('pausedAt', read.pausedAt);
  return {
    if: `#revision = :revision AND ${streak.if} AND ${pause.if}`,
    names: { '#revision': 'revision' },
    values: { ':revision': read.revision, ...streak.values, ...pause.values },
  };
};

/**
 * Writes `after` over `before` with their index items; false when the webhook changed, went, or recorded a
 * delivery's outcome meanwhile (the caller reads it again).
 */
export async function replaceWebhook(before: Webhook, after: Webhook): Promise<boolean> {
  const outcome = await transact([
    put(webhookKey(after.ownerKeyId, after.webhookId), WEBHOOK_TYPE, after, { condition: asRead(before) }),
    ...subscriptionActions(before, after),
  ]);
  return outcome.committed;
}

/** Deletes the webhook, its index items and its place in the count; false when it changed or went meanwhile. */
export async function deleteWebhook(webhook: Webhook): Promise<boolean> {
  const outcome = await transact([
    remove(webhookKey(webhook.ownerKeyId, webhook.webhookId), sameRevision(webhook.revision)),
    ...subscriptionActions(webhook, undefined),
    update(webhookCountKey(webhook.ownerKeyId), 'ADD #count :minusOne', {
      names: { '#count': 'count' },
      values: { ':minusOne': -1 },
    }),
  ]);
  return outcome.committed;
}

/**
 * What revoking the key writes besides the key: the mark on its webhooks' count item that deliveries check
 * (keyRevoked), and, per enabled webhook, its disabling with its index items, conditional on the revision
 * read (1 + the event types it subscribes to: up to 1 + 4 for a site key's).
 */
export async function revocationActions(
  ownerKeyId: string,
  now: number,
): Promise<{ mark: WriteAction; webhooks: WriteAction[][] }> {
  const enabled = (await listWebhooks(ownerKeyId)).filter((webhook) => webhook.status === 'Enabled');
  return {
    mark: update(webhookCountKey(ownerKeyId), 'SET revokedAt = :now', { values: { ':now': now } }),
    webhooks: enabled.map((webhook) => {
      const after = disabled(webhook, KEY_REVOKED);
      return [
        put(webhookKey(ownerKeyId, webhook.webhookId), WEBHOOK_TYPE, after, { condition: asRead(webhook) }),
        ...subscriptionActions(webhook, after),
      ];
    }),
  };
}

/** Whether the webhooks' key was revoked: a delivery checks it before sending, whatever its webhook says. */
export async function keyRevoked(ownerKeyId: string): Promise<boolean> {
  const result = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: webhookCountKey(ownerKeyId), ConsistentRead: true }),
  );
  return result.Item?.revokedAt !== undefined;
}

/** The enabled webhooks subscribed to an event type: a Query of that type's index partition, page after page. */
export async function listSubscribers(eventType: string): Promise<WebhookSubscriber[]> {
  const subscribers: WebhookSubscriber[] = [];
  await queryEach(
    {
      TableName: config.tableName,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': webhookSubscriptionPk(eventType) },
    },
    (page) => {
      for (const item of page.Items ?? []) subscribers.push(fromItem<WebhookSubscriber>(item));
    },
  );
  return subscribers;
}

/**
 * Pauses the webhook at `now` as its deliveries failed since `read.failingSince`, with its index items (the
 * fan-out then makes its deliveries waiting); false when it changed meanwhile (a success ended the streak,
 * its key changed it, another attempt paused it first): the one that pauses it sends its probe.
 */
export async function pauseWebhook(read: Webhook, now: number, probeDeliveryId: string): Promise<boolean> {
  const after: Webhook = { ...read, pausedAt: now, probeDeliveryId };
  const outcome = await transact([
    put(webhookKey(read.ownerKeyId, read.webhookId), WEBHOOK_TYPE, after, { condition: asRead(read) }),
    ...subscriptionActions(read, after),
  ]);
  return outcome.committed;
}

/** Ends the webhook's pause and failure streak (a probe succeeded), with its index items; false when it changed meanwhile. */
export async function resumeWebhook(read: Webhook): Promise<Webhook | undefined> {
  const { pausedAt: _pausedAt, probeDeliveryId: _probeDeliveryId, failingSince: _failingSince, ...after } = read;
  const outcome = await transact([
    put(webhookKey(read.ownerKeyId, read.webhookId), WEBHOOK_TYPE, after, { condition: asRead(read) }),
    ...subscriptionActions(read, after),
  ]);
  return outcome.committed ? after : undefined;
}

/**
 * Records how the webhook's latest delivery attempt went: a failure starts its failure streak (kept if one
 * runs), a success ends it. Not a change of its key's: no revision, and only when the streak changes. False
 * when a success finds the webhook paused since it was read: only its resume ends that streak.
 */
export async function recordDeliveryStreak(webhook: Webhook, succeeded: boolean, now: number): Promise<boolean> {
  if (succeeded === (webhook.failingSince === undefined)) return true;
  // A webhook deleted meanwhile fails the condition: it has no streak to keep.
  return writeIf(
    new UpdateCommand({
      TableName: config.tableName,
      Key: webhookKey(webhook.ownerKeyId, webhook.webhookId),
      ...(succeeded
        ? { UpdateExpression: 'REMOVE failingSince' }
        : {
            UpdateExpression: 'SET failingSince = if_not_exists(failingSince, :now)',
            ExpressionAttributeValues: { ':now': now },
          }),
      ConditionExpression: succeeded
        ? 'attribute_exists(PK) AND attribute_not_exists(pausedAt)'
        : 'attribute_exists(PK)',
    }),
  );
}
