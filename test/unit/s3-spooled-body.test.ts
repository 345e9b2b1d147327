/**
 * A body the local S3 spooled while verifying it (lib/local/s3-payload-checks.ts) is opened before it is
 * handed on, so the removal that follows every request cannot fail a reader that never read it: an
 * unread body (CreateMultipartUpload's) used to race its removal and crash the process with ENOENT.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterAll, expect, it } from 'vitest';
import { spoolVerified } from '../../lib/local/s3-payload-checks.ts';

const directory = mkdtempSync(join(tmpdir(), 'spooled-body-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

it('reads in full after the file is removed, and an unread body closes without an error', async () => {
  const read = await spoolVerified(Readable.from([Buffer.from('hello '), Buffer.from('world')]), [], directory);
  const body = await read.open();
  await read.remove();
  expect(readdirSync(directory)).toEqual([]);
  expect(await text(body)).toBe('hello world');

  const unread = await spoolVerified(Readable.from([Buffer.from('never read')]), [], directory);
  const errors: Error[] = [];
  const stream = (await unread.open()).on('error', (error) => errors.push(error));
  await unread.remove();
  stream.destroy();
  await new Promise((resolve) => stream.once('close', resolve));
  expect(errors).toEqual([]);
});
