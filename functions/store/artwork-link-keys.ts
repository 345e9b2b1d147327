/**
 * The artwork links' daily signing keys: each is KMS GenerateMac (HMAC_SHA_256) of the day's name under the
 * link key (ARTWORK_LINK_KEY_ID), so the key itself never leaves KMS and a day's key is the same in every
 * function. One GenerateMac per day and process: an artwork read signs a page's links with one key, and a
 * link check derives the key of the link's day once.
 */
import { GenerateMacCommand } from '@aws-sdk/client-kms';
import { kms } from '../shared/clients/kms.ts';
import { config } from '../shared/config.ts';
import { expiringCache } from '../shared/expiring-cache.ts';

/**
 * Days kept: every day a check derives (services/artwork-links.ts: 60 back, 31 ahead), and a few more. A day's
 * key never changes, so it is kept for good; checks of one day at once share one GenerateMac.
 */
const keys = expiringCache({
  ttlMs: () => Number.POSITIVE_INFINITY,
  maxEntries: 100,
  load: (day) => derive(Number(day)),
});

/** The signing key of `day` (days since the epoch, UTC). */
export const signingKeyOf = (day: number): Promise<Buffer> => keys.get(String(day));

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
