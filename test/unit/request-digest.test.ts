/**
 * The Idempotency-Key's request digest: a form resent with a new multipart boundary matches, and nothing
 * else that asks for something different does, whatever the content type says.
 */
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formDataBoundary, requestDigest } from '../../functions/http/request-digest.ts';
import { multipartParts } from '../../functions/library/multipart.ts';
import { multipartBody, type FilePart } from '../support/multipart.ts';

/** Busboy's own content-type parser, which the digest's reading must agree with. */
const { parseContentType } = createRequire(import.meta.url)('busboy/lib/utils.js') as {
  parseContentType(value: string): { type: string; subtype: string; params: Record<string, string> } | undefined;
};

const digest = (body: Buffer | string, contentType: string | undefined) =>
  requestDigest(
    {
      body: Buffer.from(body).toString('base64'),
      isBase64Encoded: true,
      pathParameters: { guid: 'a'.repeat(32) },
      queryStringParameters: null,
    },
    contentType,
  );

const form = (parts: FilePart[], boundary: string) => {
  const { body, contentType } = multipartBody(parts, boundary);
  return { body, contentType, digest: digest(body, contentType) };
};

/** The parts busboy reads from a form: name and bytes. */
async function partsOf(body: Buffer, contentType: string): Promise<string[]> {
  const read: string[] = [];
  for await (const part of multipartParts(Readable.from([body]), contentType, {
    maxParts: 10,
    maxPartBytes: 1 << 20,
  })) {
    const chunks: Buffer[] = [];
    for await (const chunk of part.stream) chunks.push(chunk as Buffer);
    read.push(`${part.fieldName}=${Buffer.concat(chunks).toString('latin1')}`);
  }
  return read;
}

describe('formDataBoundary', () => {
  it('reads the boundary as busboy does, or not at all', () => {
    const contentTypes = [
      'multipart/form-data; boundary=abc',
      'multipart/form-data;boundary=abc',
      'Multipart/Form-Data; BOUNDARY=abc',
      'multipart/form-data; boundary="a b;c=d"',
      'multipart/form-data ; charset=utf-8 ; boundary=abc  ',
      'multipart/form-data; foo="; boundary=x"; boundary=y',
      'multipart/form-data; boundary=first; boundary=second',
      'multipart/form-data; boundary="é"',
      'multipart/form-data; boundary="a\\"b"',
      'multipart/form-data; boundary=',
      'multipart/form-data; boundary=""',
      'multipart/form-data;',
      'multipart/form-data; boundary=a b',
      ' multipart/form-data; boundary=abc',
      'multipart/form-data',
    ];
    for (const contentType of contentTypes) {
      const parsed = parseContentType(contentType);
      const busboys =
        parsed?.type === 'multipart' && parsed.subtype === 'form-data'
          ? parsed.params.boundary || undefined
          : undefined;
      const ours = formDataBoundary(contentType);
      // Ours may decline a boundary busboy reads (then the body is digested whole), never read another.
      if (ours !== undefined) expect(ours, contentType).toBe(busboys);
      else if (!contentType.includes('\\')) expect(busboys, contentType).toBeUndefined();
    }
    expect(formDataBoundary('multipart/form-data; foo="; boundary=x"; boundary=y')).toBe('y');
  });

  it('reads none for any other type, whatever its parameters', () => {
    for (const contentType of [
      'application/json; boundary=9',
      'multipart/mixed; boundary=abc',
      'text/plain; boundary=abc',
      undefined,
    ])
      expect(formDataBoundary(contentType)).toBeUndefined();
  });
});

describe('requestDigest', () => {
  it('tells two JSON bodies apart even when the content type names a boundary they contain', () => {
    const contentType = 'application/json; boundary=9';
    const one = JSON.stringify({ ProjectGuid: 'a'.repeat(32), Quantity: 1 });
    const nineteen = JSON.stringify({ ProjectGuid: 'a'.repeat(32), Quantity: 19 });
    expect(digest(one, contentType)).not.toBe(digest(nineteen, contentType));
    expect(digest(one, contentType)).toBe(digest(one, 'application/json'));
  });

  it('matches a form resent with another boundary', () => {
    const parts = [{ name: 'image', filename: 'photo.png', contentType: 'image/png', data: 'pixels' }];
    expect(form(parts, 'first').digest).toBe(form(parts, 'second-boundary').digest);
    // As a browser or .NET writes it: a quoted boundary.
    const quoted = multipartBody(parts, 'third');
    expect(digest(quoted.body, 'multipart/form-data; boundary="third"')).toBe(form(parts, 'first').digest);
  });

  it('keeps a boundary string inside a part as content', () => {
    const inside = (boundary: string, data: string) =>
      form([{ name: 'image', filename: 'photo.png', data }], boundary).digest;
    // The data differs where each attempt's boundary stands in it.
    expect(inside('XYZ', 'a XYZ b')).not.toBe(inside('QRS', 'a QRS b'));
    // The same data, boundary string and all, with another boundary: the same request.
    expect(inside('XYZ', 'a XYZ b')).toBe(inside('QRS', 'a XYZ b'));
  });

  it('does not match a form whose data imitates the delimiters of another', async () => {
    // Two parts under boundary `b`, and one part under `c` whose data is those two parts with `--` alone
    // where `--b` stood: cut out everywhere, the boundaries would leave the same text.
    const two = multipartBody(
      [
        { name: 'a', data: '1' },
        { name: 'b', data: '2' },
      ],
      'b',
    );
    const imitation = Buffer.from(
      two.body
        .toString('latin1')
        .replace(/^--b\r\n/, '--c\r\n')
        .replace('\r\n--b\r\n', '\r\n--\r\n')
        .replace('--b--', '--c--'),
      'latin1',
    );
    const imitationType = 'multipart/form-data; boundary=c';
    expect(await partsOf(two.body, two.contentType)).toEqual(['a=1', 'b=2']);
    expect(await partsOf(imitation, imitationType)).toHaveLength(1);
    expect(digest(imitation, imitationType)).not.toBe(digest(two.body, two.contentType));
  });

  it('cuts where busboy ends a part, whatever follows the delimiter', async () => {
    // Busboy ends the part at `CRLF--b` and drops what follows up to the next delimiter; under `c` the
    // same bytes are data.
    const body = (boundary: string) =>
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--bX dropped\r\n--${boundary}--\r\n`,
      );
    expect(await partsOf(body('b'), 'multipart/form-data; boundary=b')).toEqual(['a=1']);
    expect(await partsOf(body('c'), 'multipart/form-data; boundary=c')).toEqual(['a=1\r\n--bX dropped']);
    expect(digest(body('b'), 'multipart/form-data; boundary=b')).not.toBe(
      digest(body('c'), 'multipart/form-data; boundary=c'),
    );
  });

  it('tells a form from a body of another type with the same bytes', () => {
    const { body, contentType } = multipartBody([{ name: 'a', data: '1' }], 'b');
    expect(digest(body, contentType)).not.toBe(digest(body, 'application/octet-stream'));
  });

  it('matches exactly the forms busboy reads alike, for random parts and boundaries', async () => {
    const part = fc.record({
      name: fc.constantFrom('image', 'image0', 'image1'),
      data: fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes)),
    });
    const boundary = fc.stringMatching(/^[0-9A-Za-z'+_.-]{1,12}$/);
    await fc.assert(
      fc.asyncProperty(fc.array(part, { minLength: 1, maxLength: 3 }), boundary, boundary, async (parts, b1, b2) => {
        const first = form(parts, b1);
        const second = form(parts, b2);
        const same =
          JSON.stringify(await partsOf(first.body, first.contentType).catch(String)) ===
          JSON.stringify(await partsOf(second.body, second.contentType).catch(String));
        // A boundary that happens to occur in the data changes what busboy reads; then it must not match.
        if (first.digest === second.digest) expect(same).toBe(true);
        if (!parts.some(({ data }) => data.includes(b1) || data.includes(b2))) expect(first.digest).toBe(second.digest);
      }),
      { numRuns: 300 },
    );
  });
});
