/**
 * CRC-32C (Castagnoli), one of S3's `x-amz-checksum-*` algorithms, which node:zlib lacks: continued over
 * chunks as zlib's `crc32(data, previous)` is, so the local S3 can check it as the body streams in.
 */
const TABLE = Uint32Array.from({ length: 256 }, (_, byte) => {
  let crc = byte;
  for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  return crc >>> 0;
});

/** The CRC-32C of `data` continued from `previous` (0 for the first chunk). */
export function crc32c(data: Buffer, previous = 0): number {
  let crc = ~previous >>> 0;
  for (const byte of data) crc = (TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return ~crc >>> 0;
}
