/**
 * A pulled server controls how its bytes arrive. Here a loopback server sends a JPEG made of 4-byte COM
 * segments in tiny chunks, one per timer tick, and the pull must still read its header with work linear in
 * its bytes: the bytes the header parsers examine (every read goes through HeldBytes#byte, counted in this
 * process, where the local stack runs the handler) stay under a linear bound, and the count fails the pull
 * as soon as it passes it. A reader that re-parsed from byte 0 on every chunk examined thousands of bytes
 * per byte of such a file.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { jpegOfTinySegments } from '../support/images.ts';
import { HeldBytes } from '../../functions/library/image-header/bytes.ts';
import { ImageHeaderReader } from '../../functions/library/image-header/index.ts';

const FILE = jpegOfTinySegments(64 * 1024);
const CHUNK_BYTES = 32;
const BOUND = 128 * 1024 + 8 * FILE.length;

let service: TestService;
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer(async (_request, response) => {
    response.writeHead(200, { 'Content-Type': 'image/jpeg', 'Content-Length': FILE.length });
    response.socket?.setNoDelay(true);
    for (let at = 0; at < FILE.length && !response.destroyed; at += CHUNK_BYTES) {
      response.write(FILE.subarray(at, at + CHUNK_BYTES));
      await sleep(1); // one chunk per timer tick: the receiver reads them one by one
    }
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/trickle.jpg`;
  // The trickle takes FILE.length / CHUNK_BYTES timer ticks; a busy machine must not turn that into a timeout.
  service = await startTestService({ env: { PULL_ALLOW_LOOPBACK: 'true', PULL_TIMEOUT_MS: '120000' } });
});
afterAll(async () => {
  vi.restoreAllMocks();
  server?.closeAllConnections();
  server?.close();
  await service?.close();
});

describe('a pull trickled in tiny chunks', () => {
  it('reads the header examining a linear number of bytes, and stores the image', async () => {
    let examined = 0;
    const byte = HeldBytes.prototype.byte;
    vi.spyOn(HeldBytes.prototype, 'byte').mockImplementation(function (this: HeldBytes, at: number) {
      if (++examined > BOUND) throw new Error(`the header reader examined more than ${BOUND} bytes`);
      return byte.call(this, at);
    });
    const chunks: number[] = [];
    const add = ImageHeaderReader.prototype.add;
    vi.spyOn(ImageHeaderReader.prototype, 'add').mockImplementation(function (this: ImageHeaderReader, chunk) {
      chunks.push(chunk.length);
      return add.call(this, chunk);
    });

    const key = await service.apiKey('trickle', 'library');
    const response = await service.request('POST', '/library/pull', { apiKey: key, json: { Url: url } });
    expect(response.status, response.text).toBe(200);
    expect(response.body.LibraryItem).toMatchObject({
      FileMimeType: 'image/jpeg',
      FileSize: FILE.length,
      FileMd5: createHash('md5').update(FILE).digest('hex').toUpperCase(),
    });
    // The trickle reached the reader as many small chunks (not coalesced into a few large ones)...
    expect(chunks.length).toBeGreaterThan(FILE.length / CHUNK_BYTES / 4);
    // ...and the parsers' work stayed linear in the bytes.
    expect(examined).toBeLessThanOrEqual(BOUND);
    const item = await service.request('GET', `/library/${response.body.LibraryItem.ItemGuid}`, { apiKey: key });
    expect(item.body.LibraryItem).toMatchObject({ Width: 1, Height: 1 });
  }, 180_000);
});
