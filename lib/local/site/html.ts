/**
 * HTML built from tagged templates that escape every interpolated value, so no text from the service, the
 * URL or the shopper can become markup. Only `Html` values (the result of `html` itself) pass unescaped.
 */
export class Html {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (char) => ENTITIES[char] as string);

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

function render(value: Value): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** `html\`<p>${text}</p>\``: interpolations are escaped (attribute values too; always quote attributes). */
export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let text = strings[0] as string;
  values.forEach((value, index) => {
    text += render(value) + (strings[index + 1] as string);
  });
  return new Html(text);
}

export interface PageOptions {
  title: string;
  main: Html;
  /** Extra origins images may load from (the presigned download URLs' storage). */
  imageOrigins?: readonly string[];
  /**
   * A page that runs a script of this site's own (the upload page): its path and its stylesheet's, and the
   * origins it may send requests to besides this site (the storage its uploads go to).
   */
  script?: { src: string; stylesheet: string; connectOrigins: readonly string[] };
  /** Reload the page after this many seconds (something on it is still being prepared); no script needed. */
  refreshSeconds?: number;
}

export interface RenderedPage {
  body: string;
  /** Content-Security-Policy for this page: nothing runs but the site's own script file, nothing loads from anywhere but here and the image storage. */
  csp: string;
}

export function page({ title, main, imageOrigins = [], script, refreshSeconds }: PageOptions): RenderedPage {
  const body = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${
  refreshSeconds !== undefined
    ? html`<meta http-equiv="refresh" content="${refreshSeconds}">
`
    : ''
}<title>${title} · Local checkout</title>
<link rel="stylesheet" href="/site.css">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
${
  script
    ? html`<link rel="stylesheet" href="${script.stylesheet}">
<script type="module" src="${script.src}"></script>
`
    : ''
}</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header><p class="brand">Local checkout and product builder <span class="tag">(test stand-in, no real payments)</span></p></header>
<main id="main" tabindex="-1">
${main}
</main>
<footer><p>This page is served by the service's local stand-in for the separate checkout site.</p></footer>
</body>
</html>
`.text;
  const csp = [
    "default-src 'none'",
    "style-src 'self'",
    // A script's page previews the chosen photos from blob: URLs of the files, before they are uploaded.
    `img-src 'self' ${script ? 'blob: data: ' : ''}${imageOrigins.join(' ')}`.trim(),
    // Only the site's own script file: nothing inline, nothing from elsewhere.
    ...(script ? ["script-src 'self'", `connect-src 'self' ${script.connectOrigins.join(' ')}`.trim()] : []),
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { body, csp };
}
