/**
 * The item types the table's stream hands to a consumer, as data alone (no schema): every function's writes
 * read them (store/table.ts stamps these records with the writing request's correlation id), while the
 * stream contracts (outbox-stream.ts, library-sweep.ts) build their filters and schemas on them.
 */

/** The outbox record's item type (store/outbox-store.ts writes it), which the publisher's stream filter selects. */
export const OUTBOX_TYPE = 'Outbox';

/** The record types whose expiry the sweeper acts on (library-store writes them). */
export const SWEPT_RECORD_TYPES = [
  'IngestIntent',
  'PendingUpload',
  'MultipartUpload',
  'ErasureIntent',
  'ArtworkCheckout',
  'ErasureHoldEnd',
] as const;
