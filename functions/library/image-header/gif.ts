/** GIF (87a and 89a): the logical screen size; GIF declares no density and no orientation. */
import { ByteView, MalformedHeader } from './bytes.ts';
import { NO_DENSITY, displayed, type ImageMetadata } from './metadata.ts';

export function readGif(view: ByteView): ImageMetadata {
  const signature = view.ascii(0, 6);
  if (signature !== 'GIF87a' && signature !== 'GIF89a') throw new MalformedHeader('no GIF signature');
  const screen = view.withOrder(true);
  const width = screen.u16(6);
  const height = screen.u16(8);
  if (width === 0 || height === 0) throw new MalformedHeader(`logical screen of ${width} x ${height} pixels`);
  return displayed(width, height, 1, NO_DENSITY);
}
