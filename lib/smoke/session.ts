/**
 * What every smoke step uses: the caller (one request through the public interface, its status and JSON
 * checked), `check`, and the step runner that names the failing step.
 */
import { createHash } from 'node:crypto';
import type { ApiKeyScope } from '../../functions/auth/principal.ts';
import type { SmokeOptions } from '../smoke.ts';

export class SmokeFailure extends Error {}

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new SmokeFailure(message);
}

export const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest('hex').toUpperCase();

/** A valid 1x1 PNG: the smallest image every sniffer recognises. */
export const SMOKE_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

export interface CallOptions {
  token?: string;
  apiKey?: string;
  json?: unknown;
  form?: FormData;
  expect?: number;
}

/** One smoke run: its caller, its step runner and the credentials it calls with. */
export interface SmokeSession {
  call: (method: string, path: string, init?: CallOptions) => Promise<any>;
  step: (name: string, run: () => Promise<void>) => Promise<void>;
  /** The HTTP client, for URLs outside the API (presigned uploads and downloads). */
  send: typeof fetch;
  /** A bearer token of a test user. */
  user: string;
  keys: Record<ApiKeyScope, string>;
  log: (line: string) => void;
  passed: string[];
  skipped: string[];
}

export function smokeSession(options: Omit<SmokeOptions, 'imageUrl'>): SmokeSession {
  const base = options.url.replace(/\/+$/, '');
  const log = options.log ?? (() => {});
  const send = options.fetch ?? fetch;
  const passed: string[] = [];

  async function call(method: string, path: string, init: CallOptions = {}) {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (init.token) headers.Authorization = `Bearer ${init.token}`;
    if (init.apiKey) headers['X-SERVICE-API-Key'] = init.apiKey;
    let body: string | FormData | undefined;
    if (init.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(init.json);
    } else if (init.form) {
      body = init.form;
    }
    const response = await send(`${base}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await response.text();
    const expected = init.expect ?? 200;
    check(
      response.status === expected,
      `${method} ${path}: expected ${expected}, got ${response.status}: ${text.slice(0, 500)}`,
    );
    check(
      (response.headers.get('content-type') ?? '').startsWith('application/json'),
      `${method} ${path}: content type ${response.headers.get('content-type')}, expected JSON`,
    );
    return JSON.parse(text) as any;
  }

  async function step(name: string, run: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (error) {
      throw new SmokeFailure(`step "${name}" failed: ${(error as Error).message}`, { cause: error });
    }
    passed.push(name);
    log(`ok   ${name}`);
  }

  return { call, step, send, user: options.token, keys: options.keys, log, passed, skipped: [] };
}

/** Pushes the smoke PNG with a library key: the push's answer. */
export async function pushSmokePng(call: SmokeSession['call'], libraryKey: string, fileName: string): Promise<any> {
  const form = new FormData();
  form.append('image', new Blob([SMOKE_PNG], { type: 'image/png' }), fileName);
  return call('POST', '/library/push', { apiKey: libraryKey, form });
}
