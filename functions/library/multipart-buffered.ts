/**
 * multipart/form-data of a body that is already one buffer in memory (a push): the part boundaries are
 * found with `Buffer.indexOf` and each part's bytes are handed on as a slice of the body, without a copy.
 * Busboy's boundary search in JavaScript took 3.4 ms of CPU per 4 MB where `indexOf` takes 0.06 ms.
 * Busboy still reads everything else, so every rule, limit and message stays its own: it parses a
 * skeleton of the body, the same delimiters and part headers with each part's data replaced by the part's
 * position, which tells which slice belongs to which of its file events. A body whose layout is
 * anything but plain (transport padding after a delimiter, a delimiter in the epilogue, a header section
 * running into the next delimiter, an empty header section, no closing delimiter, a part without filename)
 * goes through the streaming parser whole.
 */
import { Readable } from 'node:stream';
import type { DomainError } from '../shared/errors.ts';
import { payloadTooLarge } from '../shared/errors.ts';
import { tooManyItems } from '../domain/library.ts';
import {
  bodyStream,
  malformed,
  multipartParts,
  parser,
  type MultipartLimits,
  type MultipartPart,
} from './multipart.ts';
import { delimiterOffsets } from './multipart-delimiters.ts';

const HEADER_END = Buffer.from('\r\n\r\n');
const CLOSE = Buffer.from('--');
const [DASH, CR, LF] = [0x2d, 0x0d, 0x0a];

/** The skeleton busboy parses and each part's data, or undefined when the layout is not plain. */
function layout(bytes: Buffer, delimiter: Buffer): { skeleton: Buffer; datas: Buffer[] } | undefined {
  const offsets = delimiterOffsets(bytes, delimiter);
  let at = offsets.next().value;
  if (at === undefined) return undefined;
  const skeleton: Buffer[] = [];
  const datas: Buffer[] = [];
  for (;;) {
    const after = at + delimiter.length;
    const next = offsets.next().value;
    if (bytes[after] === DASH && bytes[after + 1] === DASH) {
      // Busboy still counts delimiters in the epilogue (of the same chunk) towards the parts limit.
      if (next !== undefined) return undefined;
      skeleton.push(delimiter, CLOSE);
      return { skeleton: Buffer.concat(skeleton), datas };
    }
    if (bytes[after] !== CR || bytes[after + 1] !== LF) return undefined;
    const headerEnd = bytes.indexOf(HEADER_END, after);
    if (next === undefined || headerEnd <= after || headerEnd + HEADER_END.length > next) return undefined;
    skeleton.push(delimiter, bytes.subarray(after, headerEnd + HEADER_END.length), Buffer.from(String(datas.length)));
    datas.push(bytes.subarray(headerEnd + HEADER_END.length, next));
    at = next;
  }
}

/** A part as busboy saw it; `position` is the skeleton's data for it: which of the body's parts it is. */
interface SkeletonPart {
  fieldName: string;
  fileName?: string;
  declaredType: string;
  isFile: boolean;
  position: string;
}

/** Busboy's parts of the skeleton, in order, and the first failure it reported. */
async function parse(form: ReturnType<typeof parser>, skeleton: Buffer, limits: MultipartLimits) {
  const parts: SkeletonPart[] = [];
  let failure: DomainError | undefined;
  await new Promise<void>((resolve) => {
    form.on('file', (fieldName, file, info) => {
      const part: SkeletonPart = {
        fieldName,
        ...(info.filename !== undefined ? { fileName: info.filename } : {}),
        declaredType: info.mimeType,
        isFile: true,
        position: '',
      };
      parts.push(part);
      // Busboy goes on (and closes) only once a file's data is read.
      file.on('data', (chunk: Buffer) => (part.position += chunk.toString('latin1')));
    });
    form.on('field', (fieldName, value, info) =>
      parts.push({ fieldName, declaredType: info.mimeType, isFile: false, position: value }),
    );
    form.on('partsLimit', () => (failure ??= tooManyItems(limits.maxParts)));
    form.on('error', (error: Error) => {
      failure ??= malformed(error.message);
      resolve();
    });
    form.on('close', resolve);
    form.end(skeleton);
  });
  return { parts, failure };
}

/** A part's bytes as a stream; over the limit (busboy's rule: reaching it) it fails as busboy's did. */
function partStream(data: Buffer, limits: MultipartLimits): Readable {
  if (data.length < limits.maxPartBytes) return Readable.from(data.length > 0 ? [data] : [], { objectMode: false });
  const failed = new Readable({
    read: () => failed.destroy(payloadTooLarge(`A part is over ${limits.maxPartBytes} bytes.`)),
  });
  failed.on('error', () => {});
  return failed;
}

/** The body's parts in order, as multipartParts reads them, with each part's data a slice of `bytes`. */
export async function* bufferedMultipartParts(
  bytes: Buffer,
  contentType: string | undefined,
  limits: MultipartLimits,
): AsyncGenerator<MultipartPart> {
  const form = parser(contentType, limits);
  const delimiter = (form as unknown as { _bparser?: { _needle?: unknown } })._bparser?._needle;
  const plain = Buffer.isBuffer(delimiter) ? layout(bytes, delimiter) : undefined;
  const parsed = plain && (await parse(form, plain.skeleton, limits));
  const positions = parsed?.parts.map((part) => (/^\d+$/.test(part.position) ? Number(part.position) : NaN));
  // A field (a part without filename) reaches its consumer as busboy decoded it (its charset, then latin1),
  // so a form with one goes through busboy whole; a push's images are files.
  const mapped = parsed?.parts.every(
    (part, i) =>
      part.isFile &&
      (positions?.[i] as number) < (plain?.datas.length ?? 0) &&
      (i === 0 || (positions?.[i] as number) > (positions?.[i - 1] as number)),
  );
  if (!plain || !parsed || !mapped) {
    form.on('error', () => {});
    form.destroy();
    yield* multipartParts(bodyStream(bytes), contentType, limits);
    return;
  }
  for (const [i, { position: _position, isFile: _isFile, ...part }] of parsed.parts.entries())
    yield { index: i, ...part, stream: partStream(plain.datas[positions?.[i] as number] as Buffer, limits) };
  const failure = parsed.failure;
  if (failure) throw failure;
}
