/**
 * Images whose four quadrants are solid colours of their own, so a rendition or a decode shows whose pixels
 * it holds, not only its size: the HEICs of test/fixtures/images/make-rendition-fixtures.sh (one of them shown
 * turned by `irot`, heif-boxes.ts), and JPEGs and TIFFs sharp makes on the spot. Colours are read at the
 * quadrants' centres, far from the edges a lossy codec or a resize blurs.
 */
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { expect } from 'vitest';
import { rotatedHeif } from './heif-boxes.ts';

type Rgb = [number, number, number];

export interface QuadrantImage {
  /** The form's file name. */
  name: string;
  bytes: Buffer;
  /** As displayed. */
  width: number;
  height: number;
  /** As displayed: top left, top right, bottom left, bottom right. */
  colours: [Rgb, Rgb, Rgb, Rgb];
}

const fixture = (name: string) => readFileSync(new URL(`../fixtures/images/${name}`, import.meta.url));

/** The HEVC HEICs, of three sizes and orientations (the colours make-rendition-fixtures.sh gives them). */
export const quadrantHeics = (): QuadrantImage[] => [
  {
    name: 'wide.heic',
    bytes: fixture('rendition-quadrants-1200x900.heic'),
    width: 1200,
    height: 900,
    colours: [
      [255, 0, 0],
      [0, 255, 0],
      [0, 0, 255],
      [255, 255, 0],
    ],
  },
  {
    name: 'small.heic',
    bytes: fixture('rendition-quadrants-640x480.heic'),
    width: 640,
    height: 480,
    colours: [
      [0, 255, 255],
      [255, 0, 255],
      [255, 255, 255],
      [0, 0, 0],
    ],
  },
  {
    // Stored 1200 x 900 (orange, purple / green, grey), a quarter turn anti-clockwise: the top right
    // quadrant comes to the top left.
    name: 'turned.heic',
    bytes: rotatedHeif(fixture('rendition-quadrants-turned.heic'), 1),
    width: 900,
    height: 1200,
    colours: [
      [128, 0, 255],
      [128, 128, 128],
      [255, 128, 0],
      [0, 128, 64],
    ],
  },
];

/** A `format` image of `width` x `height` pixels whose quadrants are `colours`. */
export async function quadrantImage(
  format: 'jpeg' | 'tiff',
  width: number,
  height: number,
  colours: QuadrantImage['colours'],
): Promise<QuadrantImage> {
  const [halfWidth, halfHeight] = [width / 2, height / 2];
  const solid = (rgb: Rgb) =>
    sharp({
      create: { width: halfWidth, height: halfHeight, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } },
    })
      .raw()
      .toBuffer();
  const tiles = await Promise.all(colours.map(solid));
  const image = sharp({ create: { width, height, channels: 3, background: '#000' } }).composite(
    tiles.map((input, index) => ({
      input,
      raw: { width: halfWidth, height: halfHeight, channels: 3 },
      left: (index % 2) * halfWidth,
      top: Math.floor(index / 2) * halfHeight,
    })),
  );
  const bytes = await (format === 'jpeg' ? image.jpeg({ quality: 90 }) : image.tiff()).toBuffer();
  return { name: `quadrants.${format === 'jpeg' ? 'jpg' : 'tif'}`, bytes, width, height, colours };
}

/** The colour of each quadrant's centre in interleaved pixels of `width` x `height` with `channels` a pixel. */
export function quadrantColours(pixels: Uint8Array, width: number, height: number, channels: number): Rgb[] {
  const at = (x: number, y: number): Rgb => {
    const offset = (Math.floor(y) * width + Math.floor(x)) * channels;
    return [pixels[offset]!, pixels[offset + 1]!, pixels[offset + 2]!];
  };
  return [
    at(width / 4, height / 4),
    at((3 * width) / 4, height / 4),
    at(width / 4, (3 * height) / 4),
    at((3 * width) / 4, (3 * height) / 4),
  ];
}

/** Lossy coding (HEVC, JPEG, WebP) moves a solid colour by a few steps; another image's is far off. */
const TOLERANCE = 24;

/** Expects each quadrant of `found` to be the colour `image` has there. */
export function expectQuadrantsOf(image: QuadrantImage, found: Rgb[], what: string): void {
  const near = found.every((rgb, quadrant) =>
    rgb.every((value, channel) => Math.abs(value - image.colours[quadrant]![channel]!) <= TOLERANCE),
  );
  expect(near, `${what}: quadrants ${JSON.stringify(found)}, ${image.name} has ${JSON.stringify(image.colours)}`).toBe(
    true,
  );
}
