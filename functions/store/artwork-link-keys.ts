/**
 * The artwork links' daily signing keys: each is KMS GenerateMac (HMAC_SHA_256) of the day's name under the
 * link key (ARTWORK_LINK_KEY_ID), so the key itself never leaves KMS and a day's key is the same in every
 * function. One GenerateMac per day and process: an artwork read signs a page's links with one key, and a
 * link check derives the key of the link's day once.
 */
import { GenerateMacCommand } from '@aws-sdk/client-kms';
import { kms } from '../shared/clients/kms.ts';
import { config } from '../shared/config.ts';

/** Days kept: every day a check derives (services/artwork-links.ts: 60 back, 31 ahead), and a few more. */
const MAX_KEPT_DAYS = 100;
const kept = new Map<number, Promise<Buffer>>();

/** The signing key of `day` (days since the epoch, UTC). */
export function signingKeyOf(day: number): Promise<Buffer> {
  const found = kept.get(day);
  if (found) return found;
  if (kept.size >= MAX_KEPT_DAYS) kept.delete(kept.keys().next().value as number);
  const key = derive(day);
  kept.set(day, key);
  // A failed GenerateMac is not kept: the next request asks KMS again.
  key.catch(() => kept.delete(day));
  return key;
}

async function derive(day: number): Promise<Buffer> {
  const result = await kms.send(
    new GenerateMacCommand({
      KeyId: config.artworkLinkKeyId,
      MacAlgorithm: 'HMAC_SHA_256',
      Message: Buffer.from(`photo-commerce artwork link day ${day}`, 'utf8'),
    }),
  );
  if (!result.Mac) throw new Error('KMS GenerateMac answered no MAC');
  return Buffer.from(result.Mac);
}
