/**
 * One business change, one TransactWriteItems: every record it touches is written, or none is. The
 * change's conditions decide it (the decisive record's `attribute_not_exists(PK)` or version, plus
 * ConditionChecks on what must still hold); a failed condition is an answer, not an error: the caller gets
 * which actions failed and the item each found (ReturnValuesOnConditionCheckFailure: ALL_OLD), so it can
 * tell "already done" from "someone else won" without a second read.
 *
 * DynamoDB's limits: 100 actions and 4 MB per transaction, one action per item. A transaction costs twice
 * the write capacity of the same plain writes. `token` (ClientRequestToken) makes a retried call within
 * ten minutes succeed without applying twice; past that window the conditions must make a repeat harmless.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import { toItem, type TableKey } from './table.ts';

export type WriteAction = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** DynamoDB's limit of actions per TransactWriteItems. */
export const MAX_TRANSACTION_ACTIONS = 100;

export interface Condition {
  /** ConditionExpression; `#name` placeholders and `:value` placeholders as usual. */
  if: string;
  values?: Record<string, unknown>;
  names?: Record<string, string>;
}

const conditionOf = (condition: Condition | undefined) =>
  condition
    ? {
        ConditionExpression: condition.if,
        ...(condition.values ? { ExpressionAttributeValues: condition.values } : {}),
        ...(condition.names ? { ExpressionAttributeNames: condition.names } : {}),
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
      }
    : {};

/** A put of the record under `key` (table.ts's item shape), only if `condition` holds. */
export const put = (
  key: TableKey,
  type: string,
  record: object,
  options: { condition?: Condition; expiresAt?: number } = {},
): WriteAction => ({
  Put: {
    TableName: config.tableName,
    Item: toItem(key, type, record, options.expiresAt),
    ...conditionOf(options.condition),
  },
});

/** A put that creates the record: it fails when a record is already under that key. */
export const create = (key: TableKey, type: string, record: object, expiresAt?: number): WriteAction =>
  put(key, type, record, {
    condition: { if: 'attribute_not_exists(PK)' },
    ...(expiresAt !== undefined ? { expiresAt } : {}),
  });

/** An UpdateItem; `update` names its values and names in `condition`'s maps or its own. */
export const update = (
  key: TableKey,
  expression: string,
  options: { values?: Record<string, unknown>; names?: Record<string, string>; condition?: Condition } = {},
): WriteAction => {
  const values = { ...options.values, ...options.condition?.values };
  const names = { ...options.names, ...options.condition?.names };
  return {
    Update: {
      TableName: config.tableName,
      Key: key,
      UpdateExpression: expression,
      ...conditionOf(options.condition),
      ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
      ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
    },
  };
};

export const remove = (key: TableKey, condition?: Condition): WriteAction => ({
  Delete: { TableName: config.tableName, Key: key, ...conditionOf(condition) },
});

/** A condition on a record the change does not write. */
export const check = (key: TableKey, condition: Condition): WriteAction => ({
  ConditionCheck: {
    TableName: config.tableName,
    Key: key,
    ConditionExpression: condition.if,
    ...(condition.values ? { ExpressionAttributeValues: condition.values } : {}),
    ...(condition.names ? { ExpressionAttributeNames: condition.names } : {}),
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  },
});

/** Why one action of a cancelled transaction failed. `item`: the record it found (absent: there was none). */
export interface FailedAction {
  index: number;
  code: string;
  item?: Record<string, unknown>;
}

/** Another transaction touched one of the same records at the same moment: nothing was written; retry (retryOnConflict). */
export class TransactionConflictError extends Error {}

export type TransactionOutcome = { committed: true } | { committed: false; failed: FailedAction[] };

/**
 * Sends the actions as one transaction. Answers `committed: false` with the failed conditions when a
 * condition did not hold; anything else (throttling, a transaction conflict the SDK could not retry away,
 * validation) is thrown.
 */
export async function transact(actions: WriteAction[], options: { token?: string } = {}): Promise<TransactionOutcome> {
  if (actions.length > MAX_TRANSACTION_ACTIONS)
    throw new Error(`a transaction of ${actions.length} actions passes DynamoDB's ${MAX_TRANSACTION_ACTIONS}`);
  try {
    await dynamo.send(
      new TransactWriteCommand({
        TransactItems: actions,
        ...(options.token !== undefined ? { ClientRequestToken: options.token } : {}),
      }),
    );
    return { committed: true };
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
    const reasons = error.CancellationReasons ?? [];
    const failed = reasons.flatMap((reason, index) =>
      reason.Code === 'ConditionalCheckFailed'
        ? [{ index, code: reason.Code, ...(reason.Item ? { item: unmarshall(reason.Item) } : {}) }]
        : [],
    );
    if (failed.length === 0 && reasons.some((reason) => reason.Code === 'TransactionConflict'))
      throw new TransactionConflictError(error.message);
    // Cancelled for another reason (throttling, validation): an error like any other.
    if (failed.length === 0) throw error;
    return { committed: false, failed };
  }
}
