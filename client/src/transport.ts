/**
 * One call to the service: credentials, the Idempotency-Key, a timeout per attempt, the caller's
 * AbortSignal, retries with backoff, error answers as `ApiError`, and wire dates as `Date`s.
 */
import { apiKeyHeader, operations, type OperationId, type Operations } from './generated/api.ts';
import { ApiError, ConnectionError, TimeoutError } from './errors.ts';
import { reviveDates, toWireJson } from './dates.ts';
import { DEFAULT_OPTIONS, type CallOptions, type ClientOptions } from './options.ts';
import { abortReason, attemptSignal, sleep } from './abort.ts';
import { backoffMs, isRetryableAnswer, retryAfterOf } from './retry.ts';
import { randomUuid } from './uuid.ts';

export interface CallInput {
  path?: Record<string, string | number>;
  query?: Record<string, string | number | undefined>;
  /** A JSON body, or a prebuilt multipart body. */
  body?: unknown;
  multipart?: { body: Uint8Array; contentType: string };
}

/** Why a 401 may be the caller's setup: the credential this client sent was empty (an unset variable reads as ''). */
function emptyCredentialOf(headers: Record<string, string>): string | undefined {
  if (headers.Authorization === 'Bearer ') return "this client sent an empty bearer token: its token option gave ''";
  if (headers[apiKeyHeader] === '') return "this client sent an empty API key: its apiKey option is ''";
  return undefined;
}

function errorOf(response: Response, text: string, note?: string): ApiError {
  let details: Record<string, unknown> = { Message: text.slice(0, 200) || response.statusText };
  try {
    const parsed = JSON.parse(text) as { Error?: unknown };
    if (parsed && typeof parsed.Error === 'object' && parsed.Error !== null)
      details = parsed.Error as Record<string, unknown>;
  } catch {
    // Not JSON (a proxy's error page): the text is the message.
  }
  if (note !== undefined) details = { ...details, Message: `${String(details.Message)} (${note})` };
  return new ApiError(response.status, details, {
    retryAfterMs: retryAfterOf(response.headers),
    requestId: response.headers.get('x-amzn-requestid') ?? undefined,
  });
}

export class Transport {
  readonly #options: ClientOptions;
  readonly #baseUrl: string;

  constructor(options: ClientOptions) {
    if (!options.baseUrl) throw new TypeError('baseUrl is required');
    this.#options = options;
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  /** One attempt's time limit: the call's, else the client's, else the default. */
  #timeoutMs(options: CallOptions): number {
    return options.timeoutMs ?? this.#options.timeoutMs ?? DEFAULT_OPTIONS.timeoutMs;
  }

  #url(template: string, input: CallInput): string {
    const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const value = input.path?.[name];
      if (value === undefined || value === '') throw new TypeError(`missing path parameter ${name}`);
      return encodeURIComponent(String(value));
    });
    const query = Object.entries(input.query ?? {}).filter(
      (entry): entry is [string, string | number] => entry[1] !== undefined,
    );
    // By hand: React Native's URLSearchParams takes no list of pairs.
    const search = query
      .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`)
      .join('&');
    return `${this.#baseUrl}${path}${search === '' ? '' : `?${search}`}`;
  }

  async #headers(
    operation: OperationId,
    input: CallInput,
    idempotencyKey: string | undefined,
  ): Promise<Record<string, string>> {
    const info = operations[operation];
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (input.multipart) headers['Content-Type'] = input.multipart.contentType;
    else if (input.body !== undefined) headers['Content-Type'] = 'application/json';
    if (idempotencyKey !== undefined) headers['Idempotency-Key'] = idempotencyKey;
    if (info.credential === 'bearer') {
      const { token } = this.#options;
      if (token === undefined) throw new TypeError(`${operation} needs a bearer token: pass { token } to the client`);
      headers.Authorization = `Bearer ${typeof token === 'function' ? await token() : token}`;
    } else if (info.credential === 'apiKey') {
      if (this.#options.apiKey === undefined)
        throw new TypeError(`${operation} needs an API key: pass { apiKey } to the client`);
      headers[apiKeyHeader] = this.#options.apiKey;
    }
    return headers;
  }

  #answer<K extends OperationId>(operation: K, text: string): Operations[K]['response'] {
    const value: unknown = text === '' ? undefined : JSON.parse(text);
    reviveDates(value, operations[operation].dates);
    return value as Operations[K]['response'];
  }

  /**
   * POSTs a form to a presigned storage URL (not the service: no credentials, no retries), with the
   * timeout and signal of a call. Storage answers a failure in XML, so it becomes a `ConnectionError`.
   */
  async postToStorage(
    url: string,
    form: { body: Uint8Array; contentType: string },
    options: CallOptions = {},
  ): Promise<void> {
    await this.#withoutCredentials(
      url,
      { method: 'POST', headers: { 'Content-Type': form.contentType }, body: form.body as RequestInit['body'] },
      'upload to storage',
      options,
      async (response) => {
        const text = await response.text();
        if (!response.ok)
          throw new ConnectionError(`upload to storage failed: HTTP ${response.status} ${text.slice(0, 200)}`);
      },
    );
  }

  /**
   * GETs a URL the service handed out that is its own credential (an artwork DownloadLink): nothing of this
   * client's credentials is sent, to it or to where it redirects. The service's refusal (403, 410) is an
   * `ApiError`; storage's, a `ConnectionError`.
   */
  getWithoutCredentials(url: string, options: CallOptions = {}): Promise<Uint8Array> {
    return this.#withoutCredentials(url, { method: 'GET' }, 'download', options, async (response) => {
      if (response.ok) return new Uint8Array(await response.arrayBuffer());
      const text = await response.text();
      if ((response.headers.get('content-type') ?? '').startsWith('application/json')) throw errorOf(response, text);
      throw new ConnectionError(`download failed: HTTP ${response.status} ${text.slice(0, 200)}`);
    });
  }

  /** One request outside the service's operations: the timeout and signal of a call, no retries. */
  async #withoutCredentials<T>(
    url: string,
    init: RequestInit,
    what: string,
    options: CallOptions,
    read: (response: Response) => Promise<T>,
  ): Promise<T> {
    const timeoutMs = this.#timeoutMs(options);
    const timing = attemptSignal(options.signal, timeoutMs);
    try {
      return await read(await (this.#options.fetch ?? globalThis.fetch)(url, { ...init, signal: timing.signal }));
    } catch (error) {
      if (options.signal?.aborted) throw abortReason(options.signal);
      if (timing.timedOut()) throw new TimeoutError(`${what}: no answer within ${timeoutMs} ms`, { cause: error });
      throw error instanceof ConnectionError || error instanceof ApiError
        ? error
        : new ConnectionError(`${what} failed: ${(error as Error)?.message}`, { cause: error });
    } finally {
      timing.done();
    }
  }

  /** Calls `operation`; resolves with its response, dates revived, or rejects with an ApiError, ConnectionError or TimeoutError. */
  async call<K extends OperationId>(
    operation: K,
    input: CallInput = {},
    options: CallOptions = {},
  ): Promise<Operations[K]['response']> {
    const info = operations[operation];
    const url = this.#url(info.path, input);
    const body = input.multipart ? input.multipart.body : input.body !== undefined ? toWireJson(input.body) : undefined;
    const idempotencyKey = info.idempotent ? (options.idempotencyKey ?? randomUuid()) : undefined;
    const maxRetries = options.maxRetries ?? this.#options.maxRetries ?? DEFAULT_OPTIONS.maxRetries;
    const timeoutMs = this.#timeoutMs(options);
    const fetchImpl = this.#options.fetch ?? globalThis.fetch;

    for (let attempt = 1; ; attempt++) {
      if (options.signal?.aborted) throw abortReason(options.signal);
      const headers = await this.#headers(operation, input, idempotencyKey);
      const timing = attemptSignal(options.signal, timeoutMs);
      let failure: ApiError | ConnectionError | undefined;
      let answer: { response: Response; text: string } | undefined;
      try {
        const response = await fetchImpl(url, {
          method: info.method,
          headers,
          ...(body !== undefined ? { body: body as RequestInit['body'] } : {}),
          signal: timing.signal,
        });
        answer = { response, text: await response.text() };
        if (!response.ok)
          failure = errorOf(response, answer.text, response.status === 401 ? emptyCredentialOf(headers) : undefined);
      } catch (error) {
        if (options.signal?.aborted) throw abortReason(options.signal);
        failure = timing.timedOut()
          ? new TimeoutError(`${info.method} ${info.path}: no answer within ${timeoutMs} ms`, { cause: error })
          : new ConnectionError(`${info.method} ${info.path}: ${(error as Error)?.message ?? 'connection failed'}`, {
              cause: error,
            });
      } finally {
        timing.done();
      }
      if (failure === undefined) return this.#answer(operation, (answer as { text: string }).text);
      if (failure instanceof ApiError && !isRetryableAnswer(failure)) throw failure;
      const retryAfterMs = failure instanceof ApiError ? failure.retryAfterMs : undefined;
      if (
        attempt > maxRetries ||
        (retryAfterMs ?? 0) > (this.#options.maxRetryAfterMs ?? DEFAULT_OPTIONS.maxRetryAfterMs)
      )
        throw failure;
      const delayMs = retryAfterMs ?? backoffMs(attempt - 1);
      this.#options.onRetry?.({ operation, attempt: attempt + 1, delayMs, error: failure });
      await sleep(delayMs, options.signal);
    }
  }
}
