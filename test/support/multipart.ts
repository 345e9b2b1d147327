/** Hand-built multipart/form-data bodies, so tests control every byte (including broken ones). */

export interface FilePart {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer | string;
}

export function multipartBody(
  parts: FilePart[],
  boundary = `----test${Math.random().toString(16).slice(2)}`,
): { body: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
    const headers = `Content-Disposition: ${disposition}\r\n${part.contentType ? `Content-Type: ${part.contentType}\r\n` : ''}\r\n`;
    chunks.push(
      Buffer.from(`--${boundary}\r\n${headers}`),
      Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** A valid 1x1 PNG (67 bytes). */
export const tinyPng = (): Buffer =>
  Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
    'base64',
  );

/**
 * A PNG of about `bytes` bytes: a valid header, IHDR and IDAT, then filler in an ancillary chunk before IEND
 * (after the image data, so the header a reader needs stays in the first bytes, as in real files).
 */
export function pngOfSize(bytes: number): Buffer {
  const png = tinyPng();
  const filler = Math.max(0, bytes - png.length - 12);
  const chunk = Buffer.alloc(12 + filler);
  chunk.writeUInt32BE(filler, 0);
  chunk.write('tEXt', 4, 'latin1');
  for (let i = 8; i < 8 + filler; i++) chunk[i] = 0x61 + (i % 26);
  // The CRC is not checked by type sniffing; what matters is a recognisable header and a size.
  const iend = png.length - 12;
  return Buffer.concat([png.subarray(0, iend), chunk, png.subarray(iend)]);
}
