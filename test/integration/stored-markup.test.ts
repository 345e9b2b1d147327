/**
 * Markup behind a readable image header (`<svg onload=...>` or `<script>` after a JPEG's or PNG's header) is
 * stored like any image: the service no longer pretends to filter it (a blocklist of tags can never be
 * complete). What makes it harmless is how it is served: every download is a presigned GET answered with
 * the sniffed image type and as an attachment, and an object that came through a presigned upload is
 * copied into the library with the sniffed type, not the one the uploading browser declared.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { multipartBody, tinyPng } from '../support/multipart.ts';
import { jpeg } from '../support/images.ts';

let service: TestService;
let libraryKey: string;
let siteKey: string;

beforeAll(async () => {
  service = await startTestService();
  libraryKey = await service.apiKey('stored-markup', 'library');
  siteKey = await service.apiKey('stored-markup-site', 'site');
});
afterAll(() => service?.close());

const SVG = '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(document.domain)"/>';
const SCRIPT = '<html><script>alert(document.cookie)</script></html>';

/** Fetches a DownloadUrl and checks it is served only as an image attachment, bytes unchanged. */
async function expectServedAsImageAttachment(downloadUrl: string, bytes: Buffer, type: string): Promise<void> {
  const download = await fetch(downloadUrl);
  expect(download.status).toBe(200);
  expect(download.headers.get('content-type')).toBe(type);
  expect(download.headers.get('content-disposition')).toBe('attachment');
  expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
}

describe('markup behind a readable image header', () => {
  it('is stored, and every download of it is the image type as an attachment (item read and builder link)', async () => {
    const files = [
      { name: 'svg-in-jpeg', data: Buffer.concat([jpeg('x'), Buffer.from(SVG)]), type: 'image/jpeg' },
      { name: 'script-in-png', data: Buffer.concat([tinyPng(), Buffer.from(SCRIPT)]), type: 'image/png' },
    ];
    for (const file of files) {
      const { body, contentType } = multipartBody([
        { name: 'image', filename: `${file.name}.html`, contentType: 'text/html', data: file.data },
      ]);
      const pushed = await service.request('POST', '/library/push', {
        apiKey: libraryKey,
        body,
        headers: { 'Content-Type': contentType },
      });
      expect(pushed.status, pushed.text).toBe(200);
      expect(pushed.body.LibraryItem.FileMimeType).toBe(file.type);

      const read = await service.request('GET', `/library/${pushed.body.LibraryItem.ItemGuid}`, {
        apiKey: libraryKey,
      });
      await expectServedAsImageAttachment(read.body.LibraryItem.DownloadUrl, file.data, file.type);
      const token = (pushed.body.ProductBuilderUrl as string).split('/').pop();
      const builder = await service.request('GET', `/builder/${token}`, { apiKey: siteKey });
      await expectServedAsImageAttachment(builder.body.Builder.Items[0].DownloadUrl, file.data, file.type);
    }
  });

  it('through a presigned upload declared text/html: stored under the sniffed type and served as it', async () => {
    const data = Buffer.concat([tinyPng(), Buffer.from(SCRIPT)]);
    const ticket = await service.request('POST', '/library/upload', { apiKey: libraryKey });
    const form = new FormData();
    for (const [name, value] of Object.entries(ticket.body.Upload.Fields as Record<string, string>))
      form.append(name, value);
    // The file part declares text/html; a Content-Type field is no option: the policy has no condition for
    // it, so S3 refuses the form ("Extra input fields").
    form.append('file', new Blob([data], { type: 'text/html' }), 'page.html');
    expect((await fetch(ticket.body.Upload.Url, { method: 'POST', body: form })).status).toBeLessThan(300);
    const completed = await service.request('POST', `/library/upload/${ticket.body.ItemGuid}/complete`, {
      apiKey: libraryKey,
    });
    expect(completed.status, completed.text).toBe(200);

    const read = await service.request('GET', `/library/${ticket.body.ItemGuid}`, { apiKey: libraryKey });
    await expectServedAsImageAttachment(read.body.LibraryItem.DownloadUrl, data, 'image/png');
    // The stored object itself carries the sniffed type, whatever a URL without overrides would answer.
    const { HeadObjectCommand } = await import('@aws-sdk/client-s3');
    const { s3 } = await import('../../functions/shared/clients/s3.ts');
    const { config } = await import('../../functions/shared/config.ts');
    const objectKey = new URL(read.body.LibraryItem.DownloadUrl).pathname.split('/').slice(2).join('/');
    const head = await s3.send(
      new HeadObjectCommand({ Bucket: config.bucketName, Key: decodeURIComponent(objectKey) }),
    );
    expect(head.ContentType).toBe('image/png');
  });
});
