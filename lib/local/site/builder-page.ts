/** The product builder page: the token's images, each with its pixel size and print quality for the chosen product size. */
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

function itemCard(item: BuilderItemView, index: number, count: number, size: ProductSize) {
  const quality = printQualityAt(item, size);
  const dimensions = pixelSize(item.Width, item.Height);
  const source = httpOrigin(item.DownloadUrl) ? item.DownloadUrl : undefined;
  return html`<li>
<h3>Photo ${index + 1} of ${count}</h3>
${source ? html`<img src="${source}" alt="Photo ${index + 1}, ${dimensions} pixels" width="${item.Width}" height="${item.Height}">` : html`<p>This photo cannot be shown.</p>`}
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
  const origins = [
    ...new Set(
      builder.Items.map((item) => httpOrigin(item.DownloadUrl)).filter(
        (origin): origin is string => origin !== undefined,
      ),
    ),
  ];
  return page({
    title: 'Product builder',
    imageOrigins: origins,
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
