/** Library read schemas: one item with its download URL and print quality, and a product builder link's items. */
import * as z from 'zod/mini';
import { GuidOut, IntegerOut, nameSchemas, responseSchemas, WireDateOut } from './common.ts';
import { LibraryItemOut, LibraryItemPath, toLibraryItemOut } from './library.ts';
import { formatDate } from '../shared/dates.ts';
import type { ReadableItem, ReadableRendition, ReadableRenditions, ResolvedBuilder } from '../domain/library-read.ts';

const Pixels = IntegerOut({
  minimum: 1,
  example: 3000,
  description:
    'Pixels as displayed: EXIF orientation 5-8 and HEIF rotation by 90 or 270 degrees swap the stored width and height',
});
const Dpi = z.nullable(
  z.number().check(
    z.positive(),
    z.meta({
      example: 300,
      description: 'Dots per inch the file declares (JFIF, EXIF, PNG pHYs, TIFF); null when it declares none',
    }),
  ),
);

export const PrintQualityOut = z.object({
  EffectivePpi: IntegerOut({
    minimum: 0,
    example: 254,
    description:
      'floor(min(W / (printW / 25.4), H / (printH / 25.4))), the print turned so its long side lies along the image long side (crop to fill)',
  }),
  Rating: z
    .enum(['Good', 'Fair', 'Poor'])
    .check(
      z.meta({ description: 'Good at PRINT_GOOD_PPI (300) or more, Fair at PRINT_FAIR_PPI (150) or more, else Poor' }),
    ),
});

const RenditionPixels = IntegerOut({
  minimum: 1,
  maximum: 1600,
  example: 1200,
  description: "The rendition's pixels, upright (orientation applied): at most 320 (Thumbnail) or 1600 (Preview)",
});

export const RenditionOut = z.object({
  Url: z.url().check(
    z.meta({
      description: 'Presigned S3 GET of the rendition, answered with ContentType; valid as long as DownloadUrl',
    }),
  ),
  Width: RenditionPixels,
  Height: RenditionPixels,
  ContentType: z.string().check(z.meta({ description: 'What Url answers: image/webp' })),
});

export const RenditionsOut = z
  .object({
    Status: z.enum(['Pending', 'Ready', 'Failed']).check(
      z.meta({
        description:
          'Pending until the renditions are made (seconds after the upload), then Ready, or Failed when the image cannot be decoded or would decode to more than RENDITION_MAX_PIXELS pixels, or its original is larger than RENDITION_MAX_BYTES',
      }),
    ),
    Thumbnail: z.optional(
      RenditionOut.check(z.meta({ description: 'Long side 320 px (never upscaled); when Status is Ready' })),
    ),
    Preview: z.optional(
      RenditionOut.check(z.meta({ description: 'Long side 1600 px (never upscaled); when Status is Ready' })),
    ),
    Reason: z.optional(z.string().check(z.meta({ description: 'Why there are none; when Status is Failed' }))),
  })
  .check(
    z.meta({
      description:
        'Display-ready copies of the image: upright, sRGB, without metadata (no EXIF, GPS, XMP or comments), WebP (transparency kept)',
    }),
  );

export const LibraryItemReadOut = z.extend(LibraryItemOut, {
  Width: Pixels,
  Height: Pixels,
  Orientation: z
    .int()
    .check(
      z.minimum(1),
      z.maximum(8),
      z.meta({ example: 1, description: 'EXIF orientation 1-8; 1 when the file has none' }),
    ),
  DpiX: Dpi,
  DpiY: Dpi,
  CreatedDateUtc: WireDateOut,
  DownloadUrl: z.url().check(
    z.meta({
      description: 'Presigned S3 GET of the stored bytes, answered with FileMimeType; valid DOWNLOAD_URL_SECONDS (900)',
    }),
  ),
  DownloadExpiresDateUtc: WireDateOut,
  Renditions: RenditionsOut,
  PrintQuality: z.optional(PrintQualityOut),
});

export const LibraryItemReadResultOut = z.object({ LibraryItem: LibraryItemReadOut });

/** A print side in millimetres: a positive decimal up to 10 m. */
const PrintMm = z.optional(
  z
    .pipe(
      z.string().check(z.regex(/^\d{1,5}(?:\.\d{1,3})?$/, 'must be a number of millimetres (up to 3 decimals)')),
      z.transform(Number),
    )
    .check(z.refine((mm) => mm > 0 && mm <= 10_000, 'must be more than 0 and at most 10000 mm')),
);

export const LibraryItemReadQuery = z
  .object({
    printWidthMm: PrintMm.check(
      z.meta({ description: 'Print width in mm; with printHeightMm the answer holds PrintQuality' }),
    ),
    printHeightMm: PrintMm.check(
      z.meta({ description: 'Print height in mm; with printWidthMm the answer holds PrintQuality' }),
    ),
  })
  .check(
    z.refine((query) => (query.printWidthMm === undefined) === (query.printHeightMm === undefined), {
      message: 'printWidthMm and printHeightMm go together',
      path: ['printHeightMm'],
    }),
  );

export const BuilderPath = z.object({
  token: z
    .pipe(
      z.string().check(z.regex(/^[0-9a-fA-F]{32}$/, 'must be a product builder token (32 hexadecimal characters)')),
      z.transform((token: string) => token.toLowerCase()),
    )
    .check(z.meta({ description: 'The last path segment of a ProductBuilderUrl (32 hexadecimal characters)' })),
});

export const BuilderLinkOut = z.object({
  Token: GuidOut,
  CreatedDateUtc: WireDateOut,
  Items: z
    .array(LibraryItemReadOut)
    .check(z.meta({ description: 'In the order the URL was minted; items deleted since are left out' })),
});

export const BuilderOut = z.object({ Builder: BuilderLinkOut });

const toRenditionOut = (rendition: ReadableRendition): z.infer<typeof RenditionOut> => ({
  Url: rendition.url,
  Width: rendition.width,
  Height: rendition.height,
  ContentType: rendition.contentType,
});

const toRenditionsOut = (renditions: ReadableRenditions): z.infer<typeof RenditionsOut> => {
  switch (renditions.status) {
    case 'Ready':
      return {
        Status: 'Ready',
        Thumbnail: toRenditionOut(renditions.thumbnail),
        Preview: toRenditionOut(renditions.preview),
      };
    case 'Failed':
      return { Status: 'Failed', Reason: renditions.reason };
    default:
      return { Status: 'Pending' };
  }
};

export const toLibraryItemReadOut = (read: ReadableItem): z.infer<typeof LibraryItemReadOut> => {
  const { item } = read;
  return {
    ...toLibraryItemOut(item),
    Width: item.width,
    Height: item.height,
    Orientation: item.orientation,
    DpiX: item.dpiX,
    DpiY: item.dpiY,
    CreatedDateUtc: formatDate(item.createdAt),
    DownloadUrl: read.downloadUrl,
    DownloadExpiresDateUtc: formatDate(read.downloadExpiresAt),
    Renditions: toRenditionsOut(read.renditions),
    ...(read.printQuality
      ? { PrintQuality: { EffectivePpi: read.printQuality.effectivePpi, Rating: read.printQuality.rating } }
      : {}),
  };
};

export const toBuilderOut = (builder: ResolvedBuilder): z.infer<typeof BuilderOut> => ({
  Builder: {
    Token: builder.token,
    CreatedDateUtc: formatDate(builder.createdAt),
    Items: builder.items.map(toLibraryItemReadOut),
  },
});

// A contract table reads best one row per operation.
// prettier-ignore
export const libraryReadContracts = {
  getItem: { principal: 'library', path: LibraryItemPath, query: LibraryItemReadQuery, response: LibraryItemReadResultOut, errors: { 404: ['LibraryItemNotFound'] } },
  getBuilder: { principal: 'site', path: BuilderPath, response: BuilderOut, errors: { 404: ['BuilderNotFound'] } },
} as const;

nameSchemas(responseSchemas, {
  LibraryItemRead: LibraryItemReadOut,
  LibraryItemReadResult: LibraryItemReadResultOut,
  PrintQuality: PrintQualityOut,
  Rendition: RenditionOut,
  Renditions: RenditionsOut,
  Builder: BuilderLinkOut,
  BuilderResult: BuilderOut,
});
