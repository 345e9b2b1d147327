/** What every format parser answers, and the one rule that turns stored dimensions into displayed ones. */

export interface ImageMetadata {
  /** Pixels as displayed: EXIF orientation 5-8 and HEIF irot 90/270 swap the stored width and height. */
  width: number;
  height: number;
  /** EXIF orientation 1-8; 1 when the file has none. */
  orientation: number;
  /** Dots per inch when the file declares a resolution (JFIF density, EXIF X/YResolution, PNG pHYs, TIFF tags, BMP); else null. */
  dpiX: number | null;
  dpiY: number | null;
}

export interface Density {
  dpiX: number | null;
  dpiY: number | null;
}

export const NO_DENSITY: Density = { dpiX: null, dpiY: null };

/** A density counts only when both axes are declared. */
export const hasDensity = (density: Density | undefined): density is Density =>
  density?.dpiX != null && density.dpiY != null;

/** An orientation outside 1-8 (0, 9, garbage) means none: 1. */
export const validOrientation = (value: number | undefined): number =>
  value !== undefined && Number.isInteger(value) && value >= 1 && value <= 8 ? value : 1;

/**
 * The metadata of an image stored `storedWidth` x `storedHeight`: orientations 5-8 turn it a quarter, so the
 * displayed width is the stored height. Zero or missing dimensions are no readable image (the caller refuses).
 */
export function displayed(
  storedWidth: number,
  storedHeight: number,
  orientation: number,
  density: Density,
): ImageMetadata {
  const turned = orientation >= 5;
  return {
    width: turned ? storedHeight : storedWidth,
    height: turned ? storedWidth : storedHeight,
    orientation,
    // Density is per stored axis; a quarter turn swaps it with the axes.
    dpiX: turned ? density.dpiY : density.dpiX,
    dpiY: turned ? density.dpiX : density.dpiY,
  };
}
