/**
 * HEVC-coded HEIF (every iPhone photo since iOS 11) decoded to RGBA with libheif-js: libheif and libde265
 * compiled to WebAssembly. sharp's prebuilt libvips carries libheif with the AV1 decoder only (AVIF), since
 * HEVC's patents keep libde265 out of its binaries (docs/design.md, "Renditions"). libheif applies the
 * file's `irot`, `imir` and `clap` transformations and assembles grid images (iPhone photos are 512 x 512
 * tiles), so the pixels come out as displayed.
 */
import libheif from 'libheif-js/wasm-bundle.js';

export interface DecodedPixels {
  /** Interleaved RGBA, 8 bits a channel. */
  data: Uint8Array;
  width: number;
  height: number;
}

/** The primary image of a HEIF file as RGBA; throws with libheif's reason when it cannot be decoded. */
export async function decodeHeif(bytes: Uint8Array): Promise<DecodedPixels> {
  const decoder = new libheif.HeifDecoder();
  const images = decoder.decode(bytes);
  try {
    const primary = images.find((image) => image.is_primary()) ?? images[0];
    if (!primary) throw new Error('libheif found no image in the file');
    const width = primary.get_width();
    const height = primary.get_height();
    const target = { data: new Uint8ClampedArray(width * height * 4), width, height };
    const decoded = await new Promise<{ data: Uint8ClampedArray } | null>((resolve) =>
      primary.display(target, resolve),
    );
    if (!decoded) throw new Error('libheif could not decode the image data');
    return {
      data: new Uint8Array(decoded.data.buffer, decoded.data.byteOffset, decoded.data.byteLength),
      width,
      height,
    };
  } finally {
    for (const image of images) image.free();
    decoder.decoder?.delete();
  }
}
