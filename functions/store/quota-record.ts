/**
 * A quota's record: `open`, a map of the open things it counts to their last recorded expiry
 * (domain/open-quota.ts). It changes only inside the transactions that open or end what it counts, so the
 * number open can never pass the quota, whatever runs at the same time: an admission's condition is the
 * size of the map. A user's open baskets (basket-quota-store.ts) and an API key's open resumable uploads
 * (multipart-quota-store.ts) each have one.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import type { OpenEntries } from '../domain/open-quota.ts';
import type { TableKey } from './table.ts';
import { TransactionConflictError, put, update, type WriteAction } from './transaction.ts';

/** The entries as recorded; undefined when there is no record yet. */
export async function readOpenEntries(key: TableKey): Promise<OpenEntries | undefined> {
  const result = await dynamo.send(new GetCommand({ TableName: config.tableName, Key: key, ConsistentRead: true }));
  return openEntriesOf(result.Item);
}

/** The `open` map of a quota record item (e.g. a failed condition's ALL_OLD item). */
export const openEntriesOf = (item: Record<string, unknown> | undefined): OpenEntries | undefined =>
  item ? ((item.open as OpenEntries | undefined) ?? {}) : undefined;

export interface Admission {
  key: TableKey;
  /** The record's `Type` when this admission creates it. */
  type: string;
  id: string;
  expiresAt: number;
  /** The record as read: the condition holds it to that (or no record at all). */
  seen: OpenEntries | undefined;
  /** Lapsed entries taken off the list; each must still be listed. */
  reclaim: readonly string[];
  /** Later expiries learnt for listed entries; each must still be listed. */
  corrected?: Readonly<Record<string, number>>;
  quota: number;
}

/**
 * The record's action that enters `id`, in the transaction that opens it: a first record is put whole;
 * otherwise the entry is set (with the corrections) and the reclaimed ones removed, on condition that
 * fewer than `quota` stay listed and every reclaimed or corrected entry is still listed (another admission
 * that reclaimed it first already counted its place).
 */
export function admissionAction(admission: Admission): WriteAction {
  const { key, type, id, expiresAt, seen, reclaim, corrected = {}, quota } = admission;
  if (seen === undefined)
    return put(key, type, { open: { [id]: expiresAt } }, { condition: { if: 'attribute_not_exists(PK)' } });
  const names: Record<string, string> = { '#open': 'open', '#new': id };
  const values: Record<string, unknown> = { ':expiresAt': expiresAt, ':limit': quota + reclaim.length };
  const sets = ['#open.#new = :expiresAt'];
  Object.entries(corrected).forEach(([listed, expiry], index) => {
    names[`#c${index}`] = listed;
    values[`:c${index}`] = expiry;
    sets.push(`#open.#c${index} = :c${index}`);
  });
  reclaim.forEach((listed, index) => (names[`#r${index}`] = listed));
  const removed = reclaim.map((_, index) => `#open.#r${index}`);
  const stillListed = [
    ...Object.keys(corrected).map((_, index) => `#c${index}`),
    ...reclaim.map((_, index) => `#r${index}`),
  ]
    .map((name) => ` AND attribute_exists(#open.${name})`)
    .join('');
  return update(key, `SET ${sets.join(', ')}${removed.length > 0 ? ` REMOVE ${removed.join(', ')}` : ''}`, {
    names,
    condition: { if: `size(#open) < :limit${stillListed}`, values },
  });
}

/** Takes `id` off the record, in the transaction that ends it; the record must exist. */
export const releaseAction = (key: TableKey, id: string): WriteAction =>
  update(key, 'REMOVE #open.#id', {
    names: { '#id': id },
    condition: { if: 'attribute_exists(#open)', names: { '#open': 'open' } },
  });

/** Another admission or end changed the record first: decide again on what it holds now. */
export class QuotaRaceLost extends Error {}
export const isQuotaRace = (error: unknown) =>
  error instanceof QuotaRaceLost || error instanceof TransactionConflictError;
