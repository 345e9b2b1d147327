/**
 * Pull: fetch images by URL through the SSRF-safe fetch and store them through the library ingest (type
 * sniffing, MD5, size cap, all or nothing, one anonymous user). Each URL is one source; ingest opens it
 * when a concurrency slot is free, so the fetch's deadline starts then and covers the whole transfer.
 * Each fetch's deadline is also cut to the request's time budget (PULL_REQUEST_TIMEOUT_MS): twenty slow
 * URLs four at a time must still end in a 4xx from the service, not in API Gateway's 504 at 29 s.
 */
import { tooManyItems } from '../domain/library.ts';
import { config } from '../shared/config.ts';
import { safeFetch } from '../library/safe-fetch.ts';
import { pullPolicy, type PullPolicy } from '../library/pull-target.ts';
import { ingestImages, type ImageSource } from './library-service.ts';
import type { IngestResult } from './ingest-commit.ts';

/** The URL's last path segment, kept on the item record as its file name. */
function fileNameOf(url: string): string | undefined {
  try {
    const segment = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
    return segment === '' ? undefined : segment.slice(0, 255);
  } catch {
    return undefined;
  }
}

export async function pullImages(
  owner: { apiKeyId: string },
  urls: readonly string[],
  policy: PullPolicy = pullPolicy(),
): Promise<IngestResult> {
  // Checked before any fetch: ingest would notice only after fetching the first LIBRARY_MAX_ITEMS URLs.
  if (urls.length > config.libraryMaxItems) throw tooManyItems(config.libraryMaxItems);
  const requestDeadline = Date.now() + config.pullRequestTimeoutMs;
  const fetchBody = async (url: string) => {
    const timeoutMs = Math.max(0, Math.min(policy.timeoutMs, requestDeadline - Date.now()));
    return (await safeFetch(url, { ...policy, timeoutMs })).body;
  };
  const sources = urls.map((url, index): ImageSource => {
    const declaredName = fileNameOf(url);
    return { index, open: () => fetchBody(url), ...(declaredName !== undefined ? { declaredName } : {}) };
  });
  return ingestImages(owner, sources, { maxBytes: policy.maxBytes, concurrency: config.pullConcurrency });
}
