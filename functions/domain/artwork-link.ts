/**
 * An artwork item's DownloadLink: a URL on the API that the lab follows without a credential, for
 * ARTWORK_LINK_DAYS, to a fresh presigned GET of the original. Pure: what a link says, and its signature.
 *
 * A link names the order, the item, the order line it was answered under and its expiry (epoch seconds),
 * never a user, and carries an HMAC-SHA-256 of those under the signing key of its expiry's UTC day. Each
 * day's key is derived from a KMS HMAC key (store/artwork-link-keys.ts), so the key that signs links changes
 * every day by itself and a link is checked with the key of its own day for as long as it lives.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface ArtworkLink {
  orderGuid: string;
  itemGuid: string;
  /** The order line's Id: the artwork record of a held item that was erased is found through it. */
  line: number;
  /** Epoch seconds after which the link answers 410. */
  expires: number;
}

const DAY_SECONDS = 24 * 60 * 60;

/** The UTC day (days since the epoch) whose key signs a link expiring at `expires`. */
export const signingDayOf = (expires: number): number => Math.floor(expires / DAY_SECONDS);

/** The expiry of a link issued at `now` (ms) to live `days`. */
export const linkExpiry = (now: number, days: number): number => Math.floor(now / 1000) + days * DAY_SECONDS;

const signedText = (link: ArtworkLink): string => `${link.orderGuid}/${link.itemGuid}/${link.line}/${link.expires}`;

/** The link's signature under its day's key: base64url, 43 characters. */
export const linkSignature = (dayKey: Buffer, link: ArtworkLink): string =>
  createHmac('sha256', dayKey).update(signedText(link)).digest('base64url');

/** Whether `signature` is the link's, compared in constant time. */
export function signatureMatches(dayKey: Buffer, link: ArtworkLink, signature: string): boolean {
  const expected = Buffer.from(linkSignature(dayKey, link));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The link's path and query on the API (the base URL is the request's). */
export const linkPathOf = (link: ArtworkLink, signature: string): string =>
  `/order/${link.orderGuid}/artwork/${link.itemGuid}?line=${link.line}&expires=${link.expires}&signature=${signature}`;

/** The link a request names, as sent: undefined when a part is missing or malformed (refused as unsigned). */
export function linkOf(sent: {
  orderGuid: string;
  itemGuid: string;
  line?: string | undefined;
  expires?: string | undefined;
}): ArtworkLink | undefined {
  const { orderGuid, itemGuid, line, expires } = sent;
  if (line === undefined || expires === undefined || !/^[1-9]\d{0,2}$/.test(line) || !/^\d{1,12}$/.test(expires))
    return undefined;
  return { orderGuid, itemGuid, line: Number(line), expires: Number(expires) };
}
