/** How the pages write the service's values for people: money, wire dates, status codes. */
import { parseDate } from '../../../functions/shared/dates.ts';

/**
 * Money as shoppers read it, in the checkout's currency (`€29.99`). Amounts arrive as JSON numbers whose
 * fraction digits vary, and prices have at most two: the currency's own digits are shown, but never fewer than
 * a price has (a currency without minor units, JPY, still shows ¥12.5) nor more than two.
 */
export function moneyIn(currency: string): (amount: number) => string {
  const own = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().minimumFractionDigits ?? 2;
  const format = new Intl.NumberFormat('en', {
    style: 'currency',
    currency,
    minimumFractionDigits: Math.min(own, 2),
    maximumFractionDigits: 2,
  });
  return (amount) => format.format(amount);
}

/** The first 8 of a guid's 32 hex digits: enough to tell lines apart, short enough for a phone's line. */
export const shortGuid = (guid: string): string => `${guid.slice(0, 8)}…`;

/** `/Date(ms)/` as `2026-11-23 18:31 UTC`; the raw text when it is not a wire date. */
export function dateTime(wire: string): string {
  const parsed = parseDate(wire);
  if (!parsed) return wire;
  return `${new Date(parsed.ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** `OrderReceived` as `Order received`. */
export const statusWords = (status: string): string => {
  const words = status.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** `1200 × 800` (the multiplication sign, as print shops write sizes). */
export const pixelSize = (width: number, height: number): string => `${width} × ${height}`;
