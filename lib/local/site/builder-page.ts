/**
 * The product builder page: the token's images, each with its pixel size and print quality for the chosen
 * product size. Images are shown from their renditions, never from the original (which may be a 50 MB
 * TIFF or a HEIC no browser shows, and carries its EXIF and GPS): the grid shows the Thumbnail, or the
 * Preview where the cell needs more pixels (srcset), and each links to its Preview. While renditions are
 * being prepared the card says so and the page reloads itself.
 */
import { html, page, type RenderedPage } from './html.ts';
import { pixelSize } from './format.ts';
import { PRODUCT_SIZES, printQualityAt, type ProductSize } from './product-sizes.ts';
import type { BuilderItemView, BuilderView } from './service-api.ts';

/** Only http(s) URLs become image sources; anything else is not loaded at all. */
function httpOrigin(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

const ratingWords = { Good: 'Good', Fair: 'Fair (may look slightly soft)', Poor: 'Poor (will look blurry)' } as const;

/** Seconds before a page with photos still being prepared reloads itself (renditions take a few seconds). */
const PREPARING_REFRESH_SECONDS = 3;

/** The rendition URLs an item's card loads (none unless Ready with http(s) URLs). */
function renditionsOf(item: BuilderItemView) {
  const { Status, Thumbnail, Preview } = item.Renditions;
  return Status === 'Ready' && Thumbnail && Preview && httpOrigin(Thumbnail.Url) && httpOrigin(Preview.Url)
    ? { thumbnail: Thumbnail, preview: Preview }
    : undefined;
}

function picture(item: BuilderItemView, label: string) {
  const ready = renditionsOf(item);
  if (ready) {
    const { thumbnail, preview } = ready;
    const srcset =
      preview.Width > thumbnail.Width
        ? html` srcset="${thumbnail.Url} ${thumbnail.Width}w, ${preview.Url} ${preview.Width}w" sizes="(min-width: 40rem) 16rem, 100vw"`
        : '';
    return html`<a href="${preview.Url}"><img src="${thumbnail.Url}"${srcset} alt="${label}" width="${thumbnail.Width}" height="${thumbnail.Height}"></a>`;
  }
  if (item.Renditions.Status === 'Pending')
    return html`<p class="preparing" role="status" data-renditions="Pending">This photo is being prepared for display; the page reloads in a moment.</p>`;
  return html`<p data-renditions="Failed">This photo cannot be shown here: ${item.Renditions.Reason ?? 'it could not be read'}</p>`;
}

function itemCard(item: BuilderItemView, index: number, count: number, size: ProductSize) {
  const quality = printQualityAt(item, size);
  const dimensions = pixelSize(item.Width, item.Height);
  return html`<li>
<h3>Photo ${index + 1} of ${count}</h3>
${picture(item, `Photo ${index + 1}, ${dimensions} pixels`)}
<dl class="facts">
<dt>Pixel size</dt><dd data-pixel-size>${dimensions}</dd>
<dt>Print quality</dt><dd class="rating-${quality.rating}" data-rating="${quality.rating}">${ratingWords[quality.rating]}, ${quality.effectivePpi} pixels per inch</dd>
<dt>File</dt><dd>${item.FileMimeType}, ${Math.ceil(item.FileSize / 1024)} KiB</dd>
</dl>
</li>
`;
}

export function builderPage(builder: BuilderView, size: ProductSize): RenderedPage {
  const count = builder.Items.length;
  const shown = builder.Items.flatMap((item) => {
    const ready = renditionsOf(item);
    return ready ? [ready.thumbnail.Url, ready.preview.Url] : [];
  });
  const origins = [...new Set(shown.map((url) => httpOrigin(url)!))];
  const preparing = builder.Items.some((item) => item.Renditions.Status === 'Pending');
  return page({
    title: 'Product builder',
    imageOrigins: origins,
    ...(preparing ? { refreshSeconds: PREPARING_REFRESH_SECONDS } : {}),
    main: html`<h1>Product builder</h1>
<p>${count === 1 ? 'Your photo' : `Your ${count} photos`}, with how well each would print.</p>
<form method="get">
<label for="size">Product size</label>
<select id="size" name="size">
${PRODUCT_SIZES.map(
  (option) => html`<option value="${option.id}"${option.id === size.id ? html` selected` : ''}>${option.label}</option>
`,
)}</select>
<button type="submit">Show print quality</button>
</form>
<h2>Print quality for the ${size.label}</h2>
${
  count === 0
    ? html`<p>There are no photos at this link any more.</p>`
    : html`<ul class="items">
${builder.Items.map((item, index) => itemCard(item, index, count, size))}</ul>`
}`,
  });
}
