/**
 * The local Lambda runtime stand-in (lib/local/bundles/): a function's process sees exactly the environment
 * it is given, loads its handler as Lambda does, answers results and errors, and a timeout or a crash fails
 * the invocation with Lambda's error and a fresh process takes the next one.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { functionProcess, InvocationError } from '../../lib/local/bundles/function-process.ts';

const assetDir = mkdtempSync(join(tmpdir(), 'function-asset-'));
writeFileSync(
  join(assetDir, 'index.mjs'),
  `import { getHeapStatistics } from 'node:v8';
let invocations = 0;
const held = [];
export const handler = async (event, context) => {
  invocations++;
  if (event.kind === 'env') return { env: { ...process.env }, cwd: process.cwd() };
  if (event.kind === 'heap') return getHeapStatistics().heap_size_limit;
  // Holds 8 MB of JavaScript numbers at a time until \`megabytes\` are held.
  if (event.kind === 'hold') while (held.length * 8 < event.megabytes) held.push(new Array(1 << 20).fill(0.5));
  if (event.kind === 'hold') return held.length * 8;
  if (event.kind === 'throw') throw new TypeError('bad input');
  if (event.kind === 'hang') return new Promise(() => {});
  if (event.kind === 'wait') await new Promise((resolve) => setTimeout(resolve, 300));
  if (event.kind === 'exit') process.exit(3);
  return { invocations, remaining: context.getRemainingTimeInMillis(), name: context.functionName };
};`,
);
// Two functions that read a variable they are not given as they load: one throws, one dies (its promise unawaited).
writeFileSync(
  join(assetDir, 'throws-at-load.mjs'),
  `if (!process.env.TABLE_NAME) throw new Error('environment variable TABLE_NAME is not set');
export const handler = async () => 'loaded';`,
);
writeFileSync(
  join(assetDir, 'dies-at-load.mjs'),
  `const settings = async () => { if (!process.env.BUCKET_NAME) throw new Error('environment variable BUCKET_NAME is not set'); };
void settings();
export const handler = async () => 'loaded';`,
);
afterAll(() => rmSync(assetDir, { recursive: true, force: true }));

const start = (timeoutSeconds = 5, maxEnvironments = 4, { handler = 'index.handler', memorySize = 256 } = {}) =>
  functionProcess({
    maxEnvironments,
    functionName: 'photo-commerce-local-probe',
    assetDir,
    timeoutSeconds,
    memorySize,
    environment: { _HANDLER: handler, AWS_REGION: 'us-east-1', ONLY_THIS: 'yes' },
    logFile: join(assetDir, 'probe.log'),
  });

describe('a function run from its asset', () => {
  it('sees exactly the environment it is given, in its asset folder, with its context', async () => {
    const fn = start();
    try {
      const { env, cwd } = (await fn.invoke({ kind: 'env' })) as { env: Record<string, string>; cwd: string };
      // Node itself may add nothing a handler reads; the parent's variables never arrive.
      expect(Object.keys(env).sort()).toEqual(['AWS_REGION', 'ONLY_THIS', '_HANDLER']);
      expect(cwd).toBe(assetDir);
      const answer = (await fn.invoke({})) as { invocations: number; remaining: number; name: string };
      expect(answer.name).toBe('photo-commerce-local-probe');
      expect(answer.invocations).toBe(2);
      expect(answer.remaining).toBeGreaterThan(0);
      expect(answer.remaining).toBeLessThanOrEqual(5000);
    } finally {
      await fn.close();
    }
  });

  it('runs one invocation at a time per environment, starting another while every one is busy', async () => {
    const fn = start(5, 2);
    try {
      // Two at once: two environments, each on its first invocation.
      const first = (await Promise.all([fn.invoke({ kind: 'wait' }), fn.invoke({ kind: 'wait' })])) as unknown[];
      expect(first).toEqual([expect.objectContaining({ invocations: 1 }), expect.objectContaining({ invocations: 1 })]);
      // Four at once with two environments: the last two wait for the first two, and reuse them.
      const counts = (
        (await Promise.all([1, 2, 3, 4].map(() => fn.invoke({ kind: 'wait' })))) as { invocations: number }[]
      )
        .map((answer) => answer.invocations)
        .sort();
      expect(counts).toEqual([2, 2, 3, 3]);
    } finally {
      await fn.close();
    }
  });

  it("answers a handler's error as Lambda reports it, and keeps the process", async () => {
    const fn = start();
    try {
      await expect(fn.invoke({ kind: 'throw' })).rejects.toMatchObject({
        errorType: 'TypeError',
        message: 'bad input',
      });
      expect(((await fn.invoke({})) as { invocations: number }).invocations).toBe(2);
    } finally {
      await fn.close();
    }
  });

  it('ends the process of an invocation past its timeout; the next one is a cold start', async () => {
    const fn = start(1, 1);
    try {
      const hung = fn.invoke({ kind: 'hang' });
      // Waits for the only environment, then gets a new one when the hung one is ended.
      const next = fn.invoke({});
      await expect(hung).rejects.toBeInstanceOf(InvocationError);
      await expect(hung).rejects.toMatchObject({
        errorType: 'Sandbox.Timedout',
        message: /Task timed out after 1.00 seconds/,
      });
      expect(((await next) as { invocations: number }).invocations).toBe(1);
    } finally {
      await fn.close();
    }
  });

  it('fails the invocation whose process exits, and starts a new one for the next', async () => {
    const fn = start();
    try {
      await expect(fn.invoke({ kind: 'exit' })).rejects.toMatchObject({ errorType: 'Runtime.ExitError' });
      expect(((await fn.invoke({})) as { invocations: number }).invocations).toBe(1);
      expect(readFileSync(join(assetDir, 'probe.log'), 'utf8')).toBe('');
    } finally {
      await fn.close();
    }
  });
  it('names the variable a function lacks when it fails to load, whether it throws or dies', async () => {
    for (const [handler, variable] of [
      ['throws-at-load.handler', 'TABLE_NAME'],
      ['dies-at-load.handler', 'BUCKET_NAME'],
    ]) {
      const fn = start(5, 1, { handler });
      try {
        await expect(fn.invoke({}), handler).rejects.toThrow(`environment variable ${variable} is not set`);
      } finally {
        await fn.close();
      }
    }
  });

  it('has the V8 heap Lambda gives its memory size, and dies of holding more', async () => {
    const small = start(30, 1, { memorySize: 128 });
    const large = start(30, 1, { memorySize: 1024 });
    try {
      // Lambda's bootstrap: old space 128 - 12 MB, semi-spaces 6 MB; V8 adds its young generation around them.
      expect(await small.invoke({ kind: 'heap' })).toBe(140 * 1024 * 1024);
      expect(await large.invoke({ kind: 'heap' })).toBe(1114 * 1024 * 1024);
      // 160 MB of numbers: beyond a heap of 140 MB.
      await expect(small.invoke({ kind: 'hold', megabytes: 160 })).rejects.toMatchObject({
        errorType: 'Runtime.ExitError',
        message: expect.stringContaining('JavaScript heap out of memory'),
      });
    } finally {
      await small.close();
      await large.close();
    }
  });
});
