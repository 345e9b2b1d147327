/**
 * How well an image prints at a given size. The image covers the print area (crop to fill), with the print
 * turned so that its long side lies along the image's long side. For displayed W x H pixels and a print of
 * A x B mm: printW = (W >= H ? max(A, B) : min(A, B)), printH the other side, and
 * EffectivePpi = floor(min(W / (printW / 25.4), H / (printH / 25.4))): the pixels per inch of the axis that
 * is stretched most. Example: 4000 x 3000 px on 150 x 100 mm: printW = 150, printH = 100,
 * min(4000 / 5.905..., 3000 / 3.937...) = min(677.3, 762) -> 677, Good.
 */

export type PrintRating = 'Good' | 'Fair' | 'Poor';

export interface PrintQuality {
  effectivePpi: number;
  rating: PrintRating;
}

/** The least effective pixels per inch of each rating above Poor. */
export interface PrintThresholds {
  good: number;
  fair: number;
}

const MM_PER_INCH = 25.4;
/**
 * Millimetres given in decimals are not exact in binary: 1800 px over 152.4 mm computes as 299.99999999999994
 * ppi although it is exactly 300. The floor forgives an error this small (far below one ppi).
 */
const ROUNDING_SLACK = 1e-9;

export function printQuality(
  image: { width: number; height: number },
  print: { widthMm: number; heightMm: number },
  thresholds: PrintThresholds,
): PrintQuality {
  const { width, height } = image;
  const longSide = Math.max(print.widthMm, print.heightMm);
  const shortSide = Math.min(print.widthMm, print.heightMm);
  const printW = width >= height ? longSide : shortSide;
  const printH = width >= height ? shortSide : longSide;
  const effectivePpi = Math.floor(
    Math.min(width / (printW / MM_PER_INCH), height / (printH / MM_PER_INCH)) + ROUNDING_SLACK,
  );
  const rating: PrintRating =
    effectivePpi >= thresholds.good ? 'Good' : effectivePpi >= thresholds.fair ? 'Fair' : 'Poor';
  return { effectivePpi, rating };
}
