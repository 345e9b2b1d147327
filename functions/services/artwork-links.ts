/**
 * Signing and checking artwork DownloadLinks (domain/artwork-link.ts) with the day's key
 * (store/artwork-link-keys.ts): the artwork read issues them, the link's own function checks them before it
 * reads anything.
 */
import { config, MAX_ARTWORK_LINK_DAYS } from '../shared/config.ts';
import { forbiddenLink, gone } from '../shared/errors.ts';
import {
  linkExpiry,
  linkPathOf,
  linkSignature,
  signatureMatches,
  signingDayOf,
  type ArtworkLink,
} from '../domain/artwork-link.ts';
import { signingKeyOf } from '../store/artwork-link-keys.ts';

/** The DownloadLinks of these items of one order, on `apiBaseUrl`, all expiring together: one key signs them. */
export async function issueLinks(
  apiBaseUrl: string,
  orderGuid: string,
  items: readonly { line: number; itemGuid: string }[],
  now = Date.now(),
): Promise<string[]> {
  if (items.length === 0) return [];
  const expires = linkExpiry(now, config.artworkLinkDays);
  const key = await signingKeyOf(signingDayOf(expires));
  return items.map(({ line, itemGuid }) => {
    const link = { orderGuid, itemGuid, line, expires };
    return `${apiBaseUrl}${linkPathOf(link, linkSignature(key, link))}`;
  });
}

/**
 * Days around today whose keys a check derives: an expiry further ahead than any link lives is not the
 * service's, and one long past is expired whatever it was. So anyone can make a function derive only these
 * days' keys (a KMS call each, once per process), however many made-up expiries they send.
 */
const EXPIRED_DAYS_CHECKED = 60;

const expired = (link: ArtworkLink) =>
  gone(
    'LinkExpired',
    `This link expired at ${new Date(link.expires * 1000).toISOString()}; read the order's artwork again for a new one.`,
  );

/** Refuses a link the service did not sign as it stands (403 InvalidLink), then one past its expiry (410 LinkExpired). */
export async function checkLink(link: ArtworkLink, signature: string, now = Date.now()): Promise<void> {
  const day = signingDayOf(link.expires);
  const today = signingDayOf(Math.floor(now / 1000));
  if (day > today + MAX_ARTWORK_LINK_DAYS + 1) throw forbiddenLink();
  if (day < today - EXPIRED_DAYS_CHECKED) throw expired(link);
  if (!signatureMatches(await signingKeyOf(day), link, signature)) throw forbiddenLink();
  if (link.expires * 1000 <= now) throw expired(link);
}
