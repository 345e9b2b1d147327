/**
 * What decoding an image takes, read from its whole file before any decoder sees it: the pixel limit of the
 * renditions holds for what the decoder will decode, not for what the header says is displayed (a HEIF crop
 * or grid can show 64 x 64 pixels and decode 268 megapixels), and the codec picks the decoder.
 */
import { ByteView, HeldBytes, MalformedHeader } from './bytes.ts';
import type { HeifDecoding } from './heif.ts';
import { PARSERS } from './parsers.ts';

export type Decoding = HeifDecoding;

/** What decoding `bytes` (a whole file of the sniffed `mimeType`) takes; MalformedHeader when unreadable. */
export function decodingOf(bytes: Uint8Array, mimeType: string): Decoding {
  const parser = PARSERS[mimeType];
  if (!parser) throw new MalformedHeader(`no header reader for ${mimeType}`);
  const whole = new HeldBytes();
  whole.head = bytes;
  whole.headLength = bytes.length;
  whole.windowStart = bytes.length;
  whole.final = true;
  const view = new ByteView(whole);
  if (parser.decoding) return parser.decoding(view);
  const { width, height } = parser.parse(view);
  return { pixels: width * height, codec: undefined };
}
