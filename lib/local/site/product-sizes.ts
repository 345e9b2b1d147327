/**
 * The product sizes the stand-in offers, and an item's print quality at one of them. The quality is the
 * service's own formula (`functions/domain/print-quality.ts`) and thresholds (PRINT_GOOD_PPI,
 * PRINT_FAIR_PPI, read from the environment `npm start` shares with the service), applied to the builder
 * answer's Width and Height, rather than one call of `GET /library/{itemGuid}?printWidthMm=&printHeightMm=`
 * per item and size: that read takes the uploading app's library key and answers 404 to any other key, and
 * the site holds a `site` key.
 */
import { printQuality, type PrintQuality } from '../../../functions/domain/print-quality.ts';
import { config } from '../../../functions/shared/config.ts';

export interface ProductSize {
  id: string;
  label: string;
  widthMm: number;
  heightMm: number;
}

/** The first is the default. */
export const PRODUCT_SIZES: readonly ProductSize[] = [
  { id: '10x15', label: '10 × 15 cm print', widthMm: 100, heightMm: 150 },
  { id: '13x18', label: '13 × 18 cm print', widthMm: 130, heightMm: 180 },
  { id: 'a4', label: 'A4 print (21 × 29.7 cm)', widthMm: 210, heightMm: 297 },
  { id: '30x40', label: '30 × 40 cm poster', widthMm: 300, heightMm: 400 },
  { id: '50x70', label: '50 × 70 cm poster', widthMm: 500, heightMm: 700 },
];

export const productSize = (id: string | null | undefined): ProductSize =>
  PRODUCT_SIZES.find((size) => size.id === id) ?? (PRODUCT_SIZES[0] as ProductSize);

export const printQualityAt = (image: { Width: number; Height: number }, size: ProductSize): PrintQuality =>
  printQuality({ width: image.Width, height: image.Height }, size, config.printThresholds);
