/**
 * The resumable upload settings' ceilings (functions/shared/config.ts): MULTIPART_MAX_BYTES at most 5 GiB
 * (a re-typing CopyObject's limit), MULTIPART_MAX_OPEN_PER_KEY at most 1000 (one item lists them).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { config } from '../../functions/shared/config.ts';

const names = ['MULTIPART_MAX_BYTES', 'MULTIPART_MAX_OPEN_PER_KEY'] as const;
const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));

afterEach(() => {
  for (const name of names)
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
});

describe('resumable upload settings', () => {
  it('default to 2 GiB and 100 open uploads per key', () => {
    for (const name of names) delete process.env[name];
    expect(config.multipartMaxBytes).toBe(2 * 1024 ** 3);
    expect(config.multipartMaxOpenPerKey).toBe(100);
  });

  it('take values up to their ceilings and refuse more, naming the variable', () => {
    process.env.MULTIPART_MAX_BYTES = String(5 * 1024 ** 3);
    process.env.MULTIPART_MAX_OPEN_PER_KEY = '1000';
    expect(config.multipartMaxBytes).toBe(5 * 1024 ** 3);
    expect(config.multipartMaxOpenPerKey).toBe(1000);
    process.env.MULTIPART_MAX_BYTES = String(5 * 1024 ** 3 + 1);
    process.env.MULTIPART_MAX_OPEN_PER_KEY = '1001';
    expect(() => config.multipartMaxBytes).toThrow('MULTIPART_MAX_BYTES must be at most 5368709120');
    expect(() => config.multipartMaxOpenPerKey).toThrow('MULTIPART_MAX_OPEN_PER_KEY must be at most 1000');
  });
});
