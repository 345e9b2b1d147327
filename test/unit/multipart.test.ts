/** The streaming multipart parser against the body forms RFC 7578 allows and real clients write. */
import { Readable } from 'node:stream';
import { beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  bodyBytes,
  bodyStream,
  decodeBody,
  multipartParts,
  type MultipartLimits,
  type MultipartPart,
} from '../../functions/library/multipart.ts';
import { bufferedMultipartParts } from '../../functions/library/multipart-buffered.ts';
import { DomainError } from '../../functions/shared/errors.ts';
import { answered, refusalOf } from '../support/refusals.ts';

const limits = { maxParts: 5, maxPartBytes: 1024 * 1024 };

interface Collected {
  index: number;
  fieldName: string;
  fileName?: string;
  declaredType: string;
  data: Buffer;
}

/** Both parsers: the streaming one, and the one for a body in memory (whose chunks are joined first). */
const parsers = {
  streaming: (body: Buffer | Readable, contentType: string, partLimits: MultipartLimits) =>
    multipartParts(Buffer.isBuffer(body) ? Readable.from([body]) : body, contentType, partLimits),
  buffered: async function* (body: Buffer | Readable, contentType: string, partLimits: MultipartLimits) {
    const chunks: Buffer[] = [];
    if (Buffer.isBuffer(body)) chunks.push(body);
    else for await (const chunk of body) chunks.push(chunk as Buffer);
    yield* bufferedMultipartParts(Buffer.concat(chunks), contentType, partLimits);
  },
};
let parse = parsers.streaming;

async function collect(body: Buffer | Readable, contentType: string, partLimits = limits): Promise<Collected[]> {
  const parts: Collected[] = [];
  for await (const part of parse(body, contentType, partLimits)) {
    const chunks: Buffer[] = [];
    for await (const chunk of part.stream) chunks.push(chunk as Buffer);
    const { stream: _stream, ...rest } = part;
    parts.push({ ...rest, data: Buffer.concat(chunks) });
  }
  return parts;
}

const crlf = (...lines: (string | Buffer)[]) =>
  Buffer.concat(
    lines.map((line) =>
      Buffer.concat([typeof line === 'string' ? Buffer.from(line, 'utf8') : line, Buffer.from('\r\n')]),
    ),
  );

const everyByte = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

describe.each(['streaming', 'buffered'] as const)('multipart parts, %s', (name) => {
  beforeEach(() => {
    parse = parsers[name];
  });

  it('reads what curl -F sends: bare boundary, quoted name and filename, a content type', async () => {
    const boundary = '------------------------d74496d66958873e';
    const body = crlf(
      `--${boundary}`,
      'Content-Disposition: form-data; name="image"; filename="photo.jpg"',
      'Content-Type: image/jpeg',
      '',
      everyByte,
      `--${boundary}--`,
    );
    const [part, ...rest] = await collect(body, `multipart/form-data; boundary=${boundary}`);
    expect(rest).toEqual([]);
    expect(part).toEqual({
      index: 0,
      fieldName: 'image',
      fileName: 'photo.jpg',
      declaredType: 'image/jpeg',
      data: everyByte,
    });
  });

  it('reads a quoted boundary with characters a bare one cannot hold', async () => {
    const boundary = "a'()+_,-./:=? z";
    const body = crlf(
      `--${boundary}`,
      'Content-Disposition: form-data; name="image"; filename="a.png"',
      '',
      everyByte,
      `--${boundary}--`,
    );
    const [part] = await collect(body, `multipart/form-data; boundary="${boundary}"`);
    expect(part?.data).toEqual(everyByte);
  });

  it('reads bare parameters and prefers filename* (RFC 5987) over filename, as .NET HttpClient writes them', async () => {
    const boundary = 'b7e1c9a0-5f3e-4d2a-9c1b-2e3f4a5b6c7d';
    const body = crlf(
      `--${boundary}`,
      "Content-Disposition: form-data; name=image; filename=photo.jpg; filename*=utf-8''ph%C3%B6to%20%E2%82%AC.jpg",
      '',
      everyByte,
      `--${boundary}--`,
    );
    const [part] = await collect(body, `multipart/form-data; boundary="${boundary}"`);
    expect(part).toMatchObject({ fieldName: 'image', fileName: 'phöto €.jpg', data: everyByte });
  });

  it('keeps every byte of a part without filename or content type (a "field" to busboy)', async () => {
    const boundary = 'xyz';
    const body = crlf(
      `--${boundary}`,
      'Content-Disposition: form-data; name="image"',
      '',
      everyByte,
      `--${boundary}`,
      'Content-Disposition: form-data; name=second',
      '',
      'text',
      `--${boundary}--`,
    );
    const parts = await collect(body, `multipart/form-data; boundary=${boundary}`);
    expect(parts.map((part) => [part.index, part.fieldName, part.fileName])).toEqual([
      [0, 'image', undefined],
      [1, 'second', undefined],
    ]);
    expect(parts[0]?.data).toEqual(everyByte);
    expect(parts[1]?.data.toString()).toBe('text');
  });

  it('takes raw UTF-8 file names as browsers send them, ignores preamble and epilogue, and header case', async () => {
    const boundary = 'WebKitFormBoundary7MA4YWxkTrZu0gW';
    const body = Buffer.concat([
      Buffer.from('This is the preamble; it is to be ignored.\r\n'),
      crlf(
        `--${boundary}`,
        'content-disposition: form-data; name="pic"; filename="été.png"',
        'CONTENT-TYPE: image/png',
        '',
        everyByte,
        `--${boundary}--`,
      ),
      Buffer.from('epilogue, also ignored\r\n'),
    ]);
    const [part] = await collect(body, `Multipart/Form-Data; Boundary=${boundary}`);
    expect(part).toMatchObject({ fieldName: 'pic', fileName: 'été.png', declaredType: 'image/png', data: everyByte });
  });

  it('gives any split of the body and any file bytes back exactly (property)', async () => {
    const boundary = 'split-boundary';
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ maxLength: 600 }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.integer({ min: 1, max: 97 }), { minLength: 1 }),
        async (files, cuts) => {
          const datas = files.map((file) => Buffer.from(file));
          const body = Buffer.concat([
            ...datas.map((data, i) =>
              crlf(
                `--${boundary}`,
                `Content-Disposition: form-data; name="f${i}"; filename="f${i}.bin"`,
                'Content-Type: application/octet-stream',
                '',
                data,
              ),
            ),
            crlf(`--${boundary}--`),
          ]);
          const chunks: Buffer[] = [];
          for (let start = 0, cut = 0; start < body.length; cut++) {
            const size = cuts[cut % cuts.length] as number;
            chunks.push(body.subarray(start, start + size));
            start += size;
          }
          const parts = await collect(Readable.from(chunks), `multipart/form-data; boundary=${boundary}`);
          expect(parts.map((part) => part.data)).toEqual(datas);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('parses on when a consumer destroys a part it does not want', async () => {
    const boundary = 'skip';
    const big = Buffer.alloc(300 * 1024, 7);
    const body = crlf(
      `--${boundary}`,
      'Content-Disposition: form-data; name="a"; filename="a"',
      '',
      big,
      `--${boundary}`,
      'Content-Disposition: form-data; name="b"; filename="b"',
      '',
      'second',
      `--${boundary}--`,
    );
    const seen: string[] = [];
    for await (const part of parse(body, `multipart/form-data; boundary=${boundary}`, limits)) {
      if (part.fieldName === 'a') part.stream.destroy();
      else for await (const chunk of part.stream) seen.push(String(chunk));
    }
    expect(seen.join('')).toBe('second');
  });

  it('takes exactly maxParts parts', async () => {
    const boundary = 'full';
    const body = crlf(
      ...Array.from({ length: 5 }, (_, i) => [
        `--${boundary}`,
        `Content-Disposition: form-data; name="f${i}"; filename="x"`,
        '',
        'x',
      ]).flat(),
      `--${boundary}--`,
    );
    expect(await collect(body, `multipart/form-data; boundary=${boundary}`)).toHaveLength(5);
  });

  it('fails with TooManyItems past maxParts', async () => {
    const boundary = 'many';
    const body = crlf(
      ...Array.from({ length: 6 }, (_, i) => [
        `--${boundary}`,
        `Content-Disposition: form-data; name="f${i}"; filename="x"`,
        '',
        'x',
      ]).flat(),
      `--${boundary}--`,
    );
    expect(await refusalOf(collect(body, `multipart/form-data; boundary=${boundary}`))).toMatchObject({
      code: 'TooManyItems',
      status: 400,
    });
  });

  it('fails a part over maxPartBytes with 413', async () => {
    const boundary = 'big';
    const body = crlf(
      `--${boundary}`,
      'Content-Disposition: form-data; name="f"; filename="x"',
      '',
      Buffer.alloc(2000),
      `--${boundary}--`,
    );
    expect(
      await refusalOf(collect(body, `multipart/form-data; boundary=${boundary}`, { maxParts: 5, maxPartBytes: 1000 })),
    ).toMatchObject({ status: 413 });
  });

  it('refuses what is not multipart/form-data (415) and a form without boundary or end (400)', async () => {
    expect(await refusalOf(collect(Buffer.from('{}'), 'application/json'))).toMatchObject({ status: 415 });
    expect(await refusalOf(collect(Buffer.from('x'), 'multipart/form-data'))).toMatchObject({
      status: 400,
      code: 'MalformedMultipart',
    });
    const truncated = Buffer.from(
      '--cut\r\nContent-Disposition: form-data; name="f"; filename="x"\r\n\r\npartial bytes',
    );
    const failure = await collect(truncated, 'multipart/form-data; boundary=cut').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DomainError);
    expect(answered(failure)).toMatchObject({ status: 400, code: 'MalformedMultipart' });
  });
});

describe('decodeBody', () => {
  it('decodes a base64 body to the same bytes, and measures it without decoding', async () => {
    const bytes = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7919) & 0xff));
    const base64 = bytes.toString('base64');
    const decoded = decodeBody(base64, true, 1024);
    const chunks: Buffer[] = [];
    for await (const chunk of bodyStream(decoded.bytes)) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks)).toEqual(bytes);
    decoded.release();
    // A released buffer serves the next body; the bytes are that body's only.
    const next = decodeBody(Buffer.from('short').toString('base64'), true, 1024);
    expect(next.bytes.toString()).toBe('short');
    next.release();
    expect(bodyBytes(base64, true)).toBe(bytes.length);
    expect(bodyBytes('héllo', false)).toBe(6);
  });
});

describe('bufferedMultipartParts against the streaming parser', () => {
  const outcome = async (read: () => AsyncGenerator<MultipartPart>) => {
    const parts: unknown[] = [];
    try {
      for await (const { stream, ...part } of read()) {
        const chunks: Buffer[] = [];
        try {
          for await (const chunk of stream) chunks.push(chunk as Buffer);
          parts.push({ ...part, data: Buffer.concat(chunks).toString('hex') });
        } catch (error) {
          parts.push({ ...part, failed: answered(error) });
        }
      }
      return { parts };
    } catch (error) {
      return { parts, failed: answered(error) };
    }
  };

  it('hands a part on as a slice of the body, not a copy', async () => {
    const body = crlf('--s', 'Content-Disposition: form-data; name="image"; filename="a"', '', everyByte, '--s--');
    let chunks = 0;
    for await (const { stream } of bufferedMultipartParts(body, 'multipart/form-data; boundary=s', limits))
      for await (const chunk of stream) {
        expect((chunk as Buffer).buffer).toBe(body.buffer);
        chunks++;
      }
    expect(chunks).toBe(1);
  });

  it('reads a field as busboy decodes it (its charset, then latin1) and a delimiter in the epilogue as it counts it', async () => {
    const type = 'multipart/form-data; boundary=bd';
    const field = crlf(
      '--bd',
      'Content-Disposition: form-data; name="b"',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'épreuve',
      '--bd--',
    );
    const epilogue = Buffer.from('\r\n--bd--\r\n--bd\r\n--bd');
    for (const body of [field, epilogue])
      expect(await outcome(() => bufferedMultipartParts(body, type, { maxParts: 1, maxPartBytes: 100 }))).toEqual(
        await outcome(() => multipartParts(Readable.from([body]), type, { maxParts: 1, maxPartBytes: 100 })),
      );
  });

  it('reads every body as the streaming parser does, plain or not (property)', async () => {
    const boundary = 'bd';
    const piece = fc.constantFrom(
      '--bd',
      '\r\n--bd',
      '\r\n--bd--',
      '--',
      '\r\n',
      '\n',
      '\r\n\r\n',
      ' ',
      'Content-Disposition: form-data; name="a"; filename="f.jpg"',
      'Content-Disposition: form-data; name="b"',
      'content-disposition: attachment; name="c"',
      'Content-Type: image/jpeg',
      'Content-Type: text/plain; charset=utf-8',
      'x',
      'épreuve',
      '0123456789',
      'zz--bd',
    );
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 30 }), fc.integer({ min: 1, max: 4 }), async (pieces, maxParts) => {
        const body = Buffer.from(pieces.join(''));
        const type = `multipart/form-data; boundary=${boundary}`;
        const partLimits = { maxParts, maxPartBytes: 12 };
        expect(await outcome(() => bufferedMultipartParts(body, type, partLimits))).toEqual(
          await outcome(() => multipartParts(Readable.from([body]), type, partLimits)),
        );
      }),
      { numRuns: 1000 },
    );
  });
});
