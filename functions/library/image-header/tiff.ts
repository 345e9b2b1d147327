/**
 * TIFF (II little-endian and MM big-endian): ImageWidth, ImageLength, Orientation and X/YResolution with
 * ResolutionUnit from the first IFD. The IFD may sit anywhere in the file; it is read only when it lies within
 * IMAGE_HEADER_MAX_BYTES (see the README for what that means for TIFFs that put it after the pixels).
 */
import { ByteView, MalformedHeader } from './bytes.ts';
import { readTiffTags } from './exif.ts';
import { displayed, type ImageMetadata } from './metadata.ts';

export function readTiff(view: ByteView): ImageMetadata {
  const tags = readTiffTags(view, 0);
  if (!tags.width || !tags.height)
    throw new MalformedHeader(`first IFD of ${tags.width ?? 0} x ${tags.height ?? 0} pixels`);
  return displayed(tags.width, tags.height, tags.orientation, tags.density);
}
