/**
 * Basket rules, pure: no I/O, no clock, no AWS. The service layer loads a basket, applies one of these
 * functions and saves the result with an optimistic version check.
 */
import { badRequest, conflict, notFound } from '../shared/errors.ts';
import type { ProjectPrice } from './project.ts';

export const MAX_QUANTITY = 999;
/**
 * Lines (each a project of its own) per basket: the completion of its checkout is one transaction of at most
 * 100 actions, 6 of them besides the order's copy per project (services/order-service.ts).
 */
export const MAX_LINES = 94;

export interface BasketLine {
  id: number;
  projectGuid: string;
  quantity: number;
  /** Price of one unit when the line was last written, in minor units. */
  unitPriceMinor: number;
  /** The project's version when the line was last written. */
  projectVersion: number;
}

export interface Basket {
  guid: string;
  userId: string;
  lines: BasketLine[];
  /** Next line id to hand out; ids are never reused within a basket. */
  nextLineId: number;
  /** Incremented by every save; the store's condition on it serializes concurrent writers. */
  version: number;
  createdAt: number;
  lastSavedAt: number;
  /** Epoch ms after which the basket counts as missing (DynamoDB TTL removes it later). */
  expiresAt: number;
  /** The last checkout taken of it: a checkout of the same version answers that one (domain/checkout.ts). */
  openCheckout?: OpenCheckout;
}

/** What a basket keeps of its last checkout. */
export interface OpenCheckout {
  checkoutId: string;
  basketVersion: number;
}

/** When a change to a basket is saved, and how long the basket lives from then if nothing touches it. */
export interface SaveTime {
  now: number;
  /** How long an untouched basket lives, in ms. */
  ttlMs: number;
}

export function newBasket(guid: string, userId: string, time: SaveTime): Basket {
  return {
    guid,
    userId,
    lines: [],
    nextLineId: 1,
    version: 1,
    createdAt: time.now,
    lastSavedAt: time.now,
    expiresAt: time.now + time.ttlMs,
  };
}

export const lineTotalMinor = (line: Pick<BasketLine, 'quantity' | 'unitPriceMinor'>): number =>
  line.quantity * line.unitPriceMinor;

export const basketTotalMinor = (basket: Pick<Basket, 'lines'>): number =>
  basket.lines.reduce((sum, line) => sum + lineTotalMinor(line), 0);

export const isExpired = (basket: Pick<Basket, 'expiresAt'>, now: number): boolean => basket.expiresAt <= now;

function touched(basket: Basket, lines: BasketLine[], time: SaveTime, nextLineId = basket.nextLineId): Basket {
  return { ...basket, lines, nextLineId, lastSavedAt: time.now, expiresAt: time.now + time.ttlMs };
}

function checkQuantity(quantity: number): void {
  if (quantity > MAX_QUANTITY) {
    throw conflict('QuantityLimitExceeded', `Quantity: a line holds at most ${MAX_QUANTITY} units.`);
  }
}

/**
 * Adds `quantity` units of a project. A project already in the basket adds to its line (one line per
 * project), priced at the project's current price; otherwise a new line with a fresh id is appended.
 */
export function addLine(
  basket: Basket,
  project: ProjectPrice,
  quantity: number,
  time: SaveTime,
): { basket: Basket; line: BasketLine } {
  const existing = basket.lines.find((line) => line.projectGuid === project.projectGuid);
  if (existing) {
    const line = {
      ...existing,
      quantity: existing.quantity + quantity,
      unitPriceMinor: project.unitPriceMinor,
      projectVersion: project.version,
    };
    checkQuantity(line.quantity);
    return {
      basket: touched(
        basket,
        basket.lines.map((l) => (l.id === line.id ? line : l)),
        time,
      ),
      line,
    };
  }
  if (basket.lines.length >= MAX_LINES) {
    throw conflict('BasketFull', `A basket holds at most ${MAX_LINES} lines.`);
  }
  checkQuantity(quantity);
  const line: BasketLine = {
    id: basket.nextLineId,
    projectGuid: project.projectGuid,
    quantity,
    unitPriceMinor: project.unitPriceMinor,
    projectVersion: project.version,
  };
  return { basket: touched(basket, [...basket.lines, line], time, basket.nextLineId + 1), line };
}

function findLine(basket: Basket, lineId: number): BasketLine {
  const line = basket.lines.find((l) => l.id === lineId);
  if (!line) throw notFound('LineNotFound', `The basket has no line ${lineId}.`);
  return line;
}

/** Sets a line's quantity, re-priced at the project's current price. The project of a line cannot change. */
export function changeLine(
  basket: Basket,
  lineId: number,
  project: ProjectPrice,
  quantity: number,
  time: SaveTime,
): { basket: Basket; line: BasketLine } {
  const current = findLine(basket, lineId);
  if (current.projectGuid !== project.projectGuid) {
    throw badRequest(
      'ValidationFailed',
      `ProjectGuid: line ${lineId} is for project ${current.projectGuid}; delete the line and add the other project instead.`,
      { Fields: ['ProjectGuid'] },
    );
  }
  checkQuantity(quantity);
  const line = { ...current, quantity, unitPriceMinor: project.unitPriceMinor, projectVersion: project.version };
  return {
    basket: touched(
      basket,
      basket.lines.map((l) => (l.id === lineId ? line : l)),
      time,
    ),
    line,
  };
}

export function removeLine(basket: Basket, lineId: number, time: SaveTime): Basket {
  findLine(basket, lineId);
  return touched(
    basket,
    basket.lines.filter((l) => l.id !== lineId),
    time,
  );
}

/**
 * The basket with every line at its project's current price, or the same basket object when every line
 * is current. A line is current when both its price and its project version match: the project store
 * accepts a repeat of the stored version, so a price can change without a new version.
 */
export function repriceLines(basket: Basket, prices: ReadonlyMap<string, ProjectPrice>, time: SaveTime): Basket {
  let changed = false;
  const lines = basket.lines.map((line) => {
    const project = prices.get(line.projectGuid);
    if (!project)
      throw conflict(
        'ProjectUnavailable',
        `Project ${line.projectGuid} of line ${line.id} has no price any more; delete the line and check out again.`,
      );
    if (project.unitPriceMinor === line.unitPriceMinor && project.version === line.projectVersion) return line;
    changed = true;
    return { ...line, unitPriceMinor: project.unitPriceMinor, projectVersion: project.version };
  });
  return changed ? touched(basket, lines, time) : basket;
}

/** Checking out needs something to pay for. */
export function assertCanCheckOut(basket: Basket): void {
  if (basket.lines.length === 0)
    throw conflict('BasketEmpty', 'An empty basket cannot be checked out; add a line first.');
}
