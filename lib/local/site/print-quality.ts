/**
 * Print quality of an image for a product size, with the service's formula (issue 11, section 2): the image
 * covers the print (crop to fill), the print turned so its long side lies along the image's long side.
 * The site computes it from the builder answer's Width and Height rather than calling
 * `GET /library/{itemGuid}?printWidthMm=&printHeightMm=`: that read takes the uploading app's library key
 * and answers 404 to any other key, and the site holds an internal key.
 */
export interface ProductSize {
  id: string;
  label: string;
  widthMm: number;
  heightMm: number;
}

/** The sizes the stand-in offers; the first is the default. */
export const PRODUCT_SIZES: readonly ProductSize[] = [
  { id: '10x15', label: '10 × 15 cm print', widthMm: 100, heightMm: 150 },
  { id: '13x18', label: '13 × 18 cm print', widthMm: 130, heightMm: 180 },
  { id: 'a4', label: 'A4 print (21 × 29.7 cm)', widthMm: 210, heightMm: 297 },
  { id: '30x40', label: '30 × 40 cm poster', widthMm: 300, heightMm: 400 },
  { id: '50x70', label: '50 × 70 cm poster', widthMm: 500, heightMm: 700 },
];

export const productSize = (id: string | null | undefined): ProductSize => PRODUCT_SIZES.find((size) => size.id === id) ?? (PRODUCT_SIZES[0] as ProductSize);

export type Rating = 'Good' | 'Fair' | 'Poor';
export interface PrintQuality {
  effectivePpi: number;
  rating: Rating;
}

/** The service's default thresholds (pixels per inch). */
export const GOOD_PPI = 300;
export const FAIR_PPI = 150;
const MM_PER_INCH = 25.4;

export function printQuality(width: number, height: number, size: Pick<ProductSize, 'widthMm' | 'heightMm'>): PrintQuality {
  const long = Math.max(size.widthMm, size.heightMm);
  const short = Math.min(size.widthMm, size.heightMm);
  const printW = width >= height ? long : short;
  const printH = width >= height ? short : long;
  const effectivePpi = Math.floor(Math.min(width / (printW / MM_PER_INCH), height / (printH / MM_PER_INCH)));
  return { effectivePpi, rating: effectivePpi >= GOOD_PPI ? 'Good' : effectivePpi >= FAIR_PPI ? 'Fair' : 'Poor' };
}
