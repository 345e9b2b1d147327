/**
 * Basket use cases: load, apply a pure rule from domain/basket.ts, save with a version check, retry on a
 * lost race. Handlers call these; they know nothing of HTTP.
 */
import { takeCheckout, type Checkout } from '../domain/checkout.ts';
import {
  addLine,
  assertCanCheckOut,
  changeLine,
  newBasket,
  removeLine,
  repriceLines,
  type Basket,
  type BasketLine,
  type SaveTime,
} from '../domain/basket.ts';
import { badRequest, conflict, notFound } from '../shared/errors.ts';
import { randomBytes } from 'node:crypto';
import { newGuid, newSecretId, timeOrderedGuid } from '../shared/ids.ts';
import { config } from '../shared/config.ts';
import { retryOnConflict } from '../shared/retry.ts';
import { fromMinorUnits } from '../shared/money.ts';
import * as baskets from '../store/basket-store.ts';
import { getCheckout } from '../store/checkout-store.ts';
import { commitCheckout } from './checkout-commit.ts';
import * as quotas from '../store/basket-quota-store.ts';
import { recordEvent } from '../store/outbox-store.ts';
import { transact, TransactionConflictError } from '../store/transaction.ts';
import { isQuotaRace, openEntriesOf, QuotaRaceLost } from '../store/quota-record.ts';
import { decideCreation } from '../domain/open-quota.ts';
import type { PageRequest } from '../store/query.ts';
import { getProjectPrices } from '../store/project-store.ts';
import type { ProjectPrice } from '../domain/project.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

export const saveTime = (): SaveTime => ({ now: Date.now(), ttlMs: config.basketTtlDays * DAY_MS });

const basketNotFound = (guid: string) => notFound('BasketNotFound', `No basket ${guid}.`);
const isStale = (error: unknown) => error instanceof baskets.StaleBasketError;
const isStaleOrConflict = (error: unknown) => isStale(error) || error instanceof TransactionConflictError;

const quotaExceeded = (quota: number) =>
  conflict('BasketQuotaExceeded', `A user may have at most ${quota} open baskets; check out or delete one first.`);

/**
 * A new empty basket, unless the user has `MAX_OPEN_BASKETS_PER_USER` open already: one transaction puts
 * the basket and enters it in the user's quota record, under the record's condition (fewer than the quota
 * listed, after reclaiming lapsed ones: domain/open-quota.ts). A lost race re-decides on the record the
 * failed condition returned; a reclaim that found the basket extended learns its later expiry.
 */
export async function createBasket(userId: string): Promise<Basket> {
  const quota = config.maxOpenBasketsPerUser;
  let seen = await quotas.readOpenBaskets(userId);
  let corrected: Record<string, number> = {};
  return retryOnConflict(async () => {
    const now = saveTime();
    // Corrections only of baskets still listed: one deleted meanwhile is not put back.
    corrected = Object.fromEntries(Object.entries(corrected).filter(([guid]) => seen?.[guid] !== undefined));
    const decision = decideCreation({ ...seen, ...corrected }, quota, now.now);
    if (!decision.admit) throw quotaExceeded(quota);
    // Time-ordered guids: the user's baskets list newest first straight from the key.
    const basket = newBasket(timeOrderedGuid(now.now, randomBytes(10)), userId, now);
    const admission = { userId, basketGuid: basket.guid, expiresAt: basket.expiresAt, seen, corrected, quota };
    const outcome = await transact([
      baskets.createBasketAction(basket),
      ...quotas.admissionActions({ ...admission, reclaim: decision.reclaim, now: now.now }),
    ]);
    if (outcome.committed) return basket;
    for (const failed of outcome.failed) {
      if (failed.index === 1) seen = openEntriesOf(failed.item);
      // A reclaimed basket that is still open: its expiry moved on since the record last heard of it.
      else if (failed.index > 1)
        corrected = { ...corrected, [decision.reclaim[failed.index - 2] as string]: failed.item?.expiresAt as number };
    }
    throw new QuotaRaceLost();
  }, isQuotaRace);
}

export async function readBasket(userId: string, guid: string): Promise<Basket> {
  const basket = await baskets.getBasket(userId, guid, Date.now());
  if (!basket) throw basketNotFound(guid);
  return basket;
}

export const listBaskets = (userId: string, page: PageRequest): Promise<baskets.BasketPage> =>
  baskets.listBaskets(userId, Date.now(), page);

/** Deletes the basket and frees its place in the quota, in one transaction. */
export async function deleteBasket(userId: string, guid: string): Promise<void> {
  const outcome = await retryOnConflict(
    () => quotas.transactReleasing([baskets.removeBasketAction(userId, guid)], userId, guid),
    (error) => error instanceof TransactionConflictError,
  );
  if (!outcome.committed) throw basketNotFound(guid);
}

/** Loads the basket and the line's project in one round trip, for a change that prices a line. */
async function loadForPricing(userId: string, guid: string, projectGuid: string, now: number) {
  const { basket, project } = await baskets.getBasketAndProject(userId, guid, projectGuid, now);
  if (!basket) throw basketNotFound(guid);
  if (!project)
    throw badRequest('UnknownProject', `ProjectGuid: no project ${projectGuid} is registered.`, {
      Fields: ['ProjectGuid'],
    });
  return { basket, project };
}

export interface LineChange {
  projectGuid: string;
  quantity: number;
}

type LineResult = { basket: Basket; line: BasketLine };
type PricedLineRule = (basket: Basket, project: ProjectPrice, now: SaveTime) => LineResult;

/** Loads the basket with the line's project, applies `rule`, saves with a version check, retries a lost race. */
function applyPricedLineChange(
  userId: string,
  guid: string,
  projectGuid: string,
  rule: PricedLineRule,
): Promise<LineResult> {
  return retryOnConflict(async () => {
    const now = saveTime();
    const { basket, project } = await loadForPricing(userId, guid, projectGuid, now.now);
    const result = rule(basket, project, now);
    return { basket: await baskets.saveBasket(result.basket, basket.version), line: result.line };
  }, isStale);
}

export const addBasketLine = (userId: string, guid: string, change: LineChange): Promise<LineResult> =>
  applyPricedLineChange(userId, guid, change.projectGuid, (basket, project, now) =>
    addLine(basket, project, change.quantity, now),
  );

export const changeBasketLine = (
  userId: string,
  guid: string,
  lineId: number,
  change: LineChange,
): Promise<LineResult> =>
  applyPricedLineChange(userId, guid, change.projectGuid, (basket, project, now) =>
    changeLine(basket, lineId, project, change.quantity, now),
  );

export function deleteBasketLine(userId: string, guid: string, lineId: number): Promise<Basket> {
  return retryOnConflict(async () => {
    const now = saveTime();
    const basket = await readBasket(userId, guid);
    return baskets.saveBasket(removeLine(basket, lineId, now), basket.version);
  }, isStale);
}

/**
 * Takes a snapshot of the basket at the projects' current prices, each line named with its project's current
 * name; the checkout site charges for exactly that. A line's stored price is the one it had when last
 * written, possibly long ago, so every line is repriced first (one BatchGetItem of the basket's projects,
 * which names them and their artwork too). One transaction then writes the snapshot, the BasketCheckedOut
 * event, the basket (as its next version when a price moved, else as it is) naming the snapshot as its open
 * checkout (the basket's version condition decides, a lost race starts over), and a hold mark on each item of
 * the lines' artwork (services/checkout-commit.ts: more than one transaction when they pass 100 actions). A
 * snapshot of a version that changes meanwhile is harmless: completion refuses it (BasketChanged).
 *
 * A basket unchanged since its open checkout (same version, no price moved) answers that checkout, still
 * open, instead of a new one (one GetItem in place of the commit): repeating a checkout writes nothing, so
 * neither snapshots nor hold marks pile up.
 */
export function checkOutBasket(userId: string, guid: string): Promise<Checkout> {
  return retryOnConflict(async () => {
    const now = saveTime();
    const stored = await readBasket(userId, guid);
    assertCanCheckOut(stored);
    const projects = await getProjectPrices(stored.lines.map((line) => line.projectGuid));
    const basket = repriceLines(stored, projects, now);
    const repriced = basket !== stored;
    if (!repriced && stored.openCheckout?.basketVersion === stored.version) {
      const open = await getCheckout(stored.openCheckout.checkoutId, now.now);
      if (open && open.order === undefined) return open;
    }
    const checkout = takeCheckout(newSecretId(), basket, repriced ? stored.version + 1 : stored.version, projects, now);
    const openCheckout = { checkoutId: checkout.checkoutId, basketVersion: checkout.basketVersion };
    const artwork = [...new Set(basket.lines.flatMap((line) => projects.get(line.projectGuid)?.itemGuids ?? []))];
    await commitCheckout(
      checkout,
      [
        recordEvent({
          type: 'BasketCheckedOut',
          id: `BasketCheckedOut-${newGuid()}`,
          time: checkout.createdAt,
          detail: {
            UserId: userId,
            BasketGuid: basket.guid,
            BasketVersion: checkout.basketVersion,
            OrderTotal: fromMinorUnits(checkout.totalMinor),
            LineCount: basket.lines.length,
          },
        }),
        repriced
          ? baskets.saveBasketAction({ ...basket, openCheckout }, stored.version)
          : baskets.noteOpenCheckoutAction(basket, openCheckout, now.now),
      ],
      artwork,
    );
    return checkout;
  }, isStaleOrConflict);
}

export const checkoutUrl = (checkoutId: string): string => `${config.checkoutUrl}/checkout/${checkoutId}`;
