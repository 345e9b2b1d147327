/** How the pages write the service's values for people: money, wire dates, status codes. */
import { parseDate } from '../../../functions/shared/dates.ts';

/** Money arrives as a JSON number whose fraction digits vary; shoppers read two. */
export const money = (amount: number): string => amount.toFixed(2);

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
