/** The local checkout and builder site's pages as pure functions of sample service answers, and its helpers. */
import { describe, expect, it } from 'vitest';
import { builderPage } from '../../lib/local/site/builder-page.ts';
import { checkoutPage, confirmationPage } from '../../lib/local/site/checkout-pages.ts';
import { html } from '../../lib/local/site/html.ts';
import { PRODUCT_SIZES, printQualityAt, productSize } from '../../lib/local/site/product-sizes.ts';
import { builderProblem, checkoutProblem, problemPage } from '../../lib/local/site/problems.ts';
import type { BuilderItemView, BuilderView, CheckoutView, OrderView } from '../../lib/local/site/service-api.ts';
import { loopbackAddress } from '../../lib/local/site/stand-in.ts';
import { serviceApi } from '../../lib/local/site/service-api.ts';

const HOSTILE = `"><script>alert(1)</script><img src=x onerror=alert(2)>'&`;
/** No tag or attribute the hostile value could have opened survives unescaped. */
const expectNoInjection = (body: string) => {
  expect(body).not.toContain('<script');
  expect(body).not.toContain('<img src=x');
};

const checkout: CheckoutView = {
  CheckoutId: 'a'.repeat(32),
  BasketGuid: 'b'.repeat(32),
  Lines: [
    { Id: 1, ProjectGuid: 'c'.repeat(32), Quantity: 2, Total: 59.98, Name: 'Photo book A4, 24 pages' },
    { Id: 2, ProjectGuid: 'd'.repeat(32), Quantity: 1, Total: 49.5, Name: null },
  ],
  OrderTotal: 109.48,
  Currency: 'EUR',
  Status: 'Open',
  CreatedDateUtc: '/Date(1795000000000)/',
  ExpiresDateUtc: '/Date(1795003600000)/',
};

const order: OrderView = {
  OrderGuid: 'e'.repeat(32),
  Lines: checkout.Lines.map((line) => ({ ...line, ProjectVersion: 1, SubTotal: line.Total, AddOns: [] })),
  OrderTotal: 109.48,
  Status: 'OrderReceived',
  CreatedDateUtc: '/Date(1795000100000)/',
  CompletedDateUtc: '/Date(-62135596800000+0000)/',
  LastSavedDateUtc: '/Date(1795000100000)/',
};

/** A rendition of an item of `w` x `h` pixels, long side at most `longSide`. */
function rendition(index: number, name: string, w: number, h: number, longSide: number) {
  const scale = Math.min(1, longSide / Math.max(w, h));
  return {
    Url: `http://127.0.0.1:4569/photo-commerce-images/item-${index}.${name}.webp?X-Amz-Signature=abc&x=1`,
    Width: Math.round(w * scale),
    Height: Math.round(h * scale),
    ContentType: 'image/webp',
  };
}

/** A sample `GET /builder/{token}` answer, shaped as issue 11 section 3 describes it. */
const builder: BuilderView = {
  Token: 'f'.repeat(32),
  CreatedDateUtc: '/Date(1795000000000)/',
  Items: [
    { w: 1200, h: 800 },
    { w: 3000, h: 4000 },
    { w: 640, h: 480 },
  ].map(({ w, h }, index) => ({
    ItemGuid: String(index).repeat(32),
    FileMimeType: 'image/jpeg',
    FileSize: 123_456,
    FileMd5: '0'.repeat(32),
    Width: w,
    Height: h,
    Orientation: 1,
    DpiX: null,
    DpiY: null,
    CreatedDateUtc: '/Date(1795000000000)/',
    DownloadUrl: `http://127.0.0.1:4569/photo-commerce-images/item-${index}?X-Amz-Signature=abc&x=1`,
    DownloadExpiresDateUtc: '/Date(1795000900000)/',
    Renditions: {
      Status: 'Ready' as const,
      Thumbnail: rendition(index, 'thumbnail', w, h, 320),
      Preview: rendition(index, 'preview', w, h, 1600),
    },
  })),
};

describe('checkout pages', () => {
  it('shows every line, the total and a Pay button in a form that posts to the site', () => {
    const { body } = checkoutPage(checkout);
    expect(body).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(body).toContain('<title>Pay for your order · Local checkout</title>');
    expect(body).toContain('<main id="main"');
    expect(body).toContain('<h1>Pay for your order</h1>');
    expect(body).toContain(
      `<th scope="row"><span class="product" data-name>Photo book A4, 24 pages</span> <small class="guid" title="${'c'.repeat(32)}">cccccccc…</small></th>` +
        '<td class="number" data-label="Quantity" data-quantity>2</td><td class="number" data-label="Unit price" data-unit-price>€29.99</td>' +
        '<td class="number" data-label="Line total" data-line-total>€59.98</td>',
    );
    // A project registered without a name says so, its short guid beside it.
    expect(body).toContain('<span class="product unnamed" data-name>Unnamed product</span> <small class="guid"');
    expect(body).toContain('<td class="number" data-total>€109.48</td>');
    expect(body).toContain(`<form method="post" action="/checkout/${'a'.repeat(32)}/pay">`);
    expect(body).toContain('<button type="submit">Pay €109.48</button>');
    expect(body).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">');
    expect(body).toContain('valid until 2026-11-18 12:06 UTC');
  });

  it("writes amounts in the checkout's currency, with a price's cents even where the currency has none", () => {
    const lines = [{ Id: 1, ProjectGuid: 'c'.repeat(32), Quantity: 2, Total: 25, Name: 'Print' }];
    expect(checkoutPage({ ...checkout, Lines: lines, OrderTotal: 25, Currency: 'USD' }).body).toContain(
      'data-unit-price>$12.50</td>',
    );
    expect(checkoutPage({ ...checkout, Lines: lines, OrderTotal: 25, Currency: 'JPY' }).body).toContain(
      'data-unit-price>¥12.5</td>',
    );
    expect(checkoutPage({ ...checkout, Lines: lines, OrderTotal: 25, Currency: 'KWD' }).body).toContain(
      'data-unit-price>KWD\u00a012.50</td>',
    );
  });

  it('confirms with the order guid and its status', () => {
    const { body } = confirmationPage({ ...checkout, Status: 'Completed', OrderGuid: order.OrderGuid }, order);
    expect(body).toContain(`<code data-order-guid>${order.OrderGuid}</code>`);
    expect(body).toContain('<dd data-order-status="OrderReceived">Order received</dd>');
  });

  it('escapes hostile values from the service everywhere', () => {
    const hostileCheckout = {
      ...checkout,
      CheckoutId: HOSTILE,
      ExpiresDateUtc: HOSTILE,
      Lines: [{ Id: 1, ProjectGuid: HOSTILE, Quantity: 1, Total: 1, Name: HOSTILE }],
    };
    for (const { body } of [
      checkoutPage(hostileCheckout),
      confirmationPage(hostileCheckout, { ...order, OrderGuid: HOSTILE, Status: HOSTILE as never }),
    ]) {
      expectNoInjection(body);
      expect(body).toContain('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    }
    expect(checkoutPage(hostileCheckout).body).toContain('action="/checkout/%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E');
  });

  it('explains in plain words why a checkout cannot be paid', () => {
    expect(checkoutProblem({ status: 409, code: 'BasketChanged' })).toMatchObject({
      status: 409,
      title: 'This checkout can no longer be paid',
    });
    expect(checkoutProblem({ status: 404, code: 'CheckoutNotFound' })).toMatchObject({
      status: 404,
      title: 'This checkout link has expired',
    });
    expect(checkoutProblem({ status: 400, code: 'BadRequest' }).status).toBe(404);
    expect(checkoutProblem({ status: 503, code: 'ServiceUnavailable' }).status).toBe(502);
    const { body } = problemPage(checkoutProblem({ status: 409, code: 'BasketChanged' }));
    expect(body).toContain('<div class="notice" role="alert"><p>The basket was changed');
    expect(body).toContain('Nothing has been charged.');
  });
});

describe('builder page', () => {
  it('shows one image per item from its renditions (never the original), with pixel size and print quality for the chosen size', () => {
    const { body, csp } = builderPage(builder, productSize('10x15'));
    expect(body.match(/<img /g)).toHaveLength(3);
    const base = 'http://127.0.0.1:4569/photo-commerce-images/item-0';
    expect(body).toContain(
      `<a href="${base}.preview.webp?X-Amz-Signature=abc&amp;x=1"><img src="${base}.thumbnail.webp?X-Amz-Signature=abc&amp;x=1" srcset="${base}.thumbnail.webp?X-Amz-Signature=abc&amp;x=1 320w, ${base}.preview.webp?X-Amz-Signature=abc&amp;x=1 1200w" sizes="(min-width: 40rem) 16rem, 100vw" alt="Photo 1, 1200 × 800 pixels" width="320" height="213"></a>`,
    );
    expect(body).not.toContain(`${base}?`);
    expect(body).not.toContain('http-equiv="refresh"');
    expect(body).toContain('<dd data-pixel-size>1200 × 800</dd>');
    expect(body).toContain('data-rating="Fair">Fair (may look slightly soft), 203 pixels per inch');
    expect(body).toContain('<dd data-pixel-size>3000 × 4000</dd>');
    expect(body).toContain('data-rating="Good">Good, 677 pixels per inch');
    expect(body).toContain('<option value="10x15" selected>10 × 15 cm print</option>');
    expect(body).toContain('<label for="size">Product size</label>');
    expect(csp).toContain("img-src 'self' http://127.0.0.1:4569;");
  });

  it('says a photo is being prepared (and reloads the page) while its renditions are Pending, and why when Failed', () => {
    const [ready, pending, failed] = builder.Items as [BuilderItemView, BuilderItemView, BuilderItemView];
    const { body } = builderPage(
      {
        ...builder,
        Items: [
          ready,
          { ...pending, Renditions: { Status: 'Pending' } },
          { ...failed, Renditions: { Status: 'Failed', Reason: 'The image could not be decoded.' } },
        ],
      },
      productSize('10x15'),
    );
    expect(body.match(/<img /g)).toHaveLength(1);
    expect(body).toContain('<p class="preparing" role="status" data-renditions="Pending">This photo is being prepared');
    expect(body).toContain(
      '<p data-renditions="Failed">This photo cannot be shown here: The image could not be decoded.</p>',
    );
    expect(body).toContain('<meta http-equiv="refresh" content="3">');
  });

  it('loads nothing that is not an http(s) URL and escapes hostile values', () => {
    const item = builder.Items[0] as BuilderItemView;
    const hostileRendition = (Url: string) => ({ ...item.Renditions.Thumbnail!, Url });
    const hostile: BuilderView = {
      ...builder,
      Items: [
        {
          ...item,
          FileMimeType: HOSTILE,
          Renditions: {
            Status: 'Ready',
            Thumbnail: hostileRendition('javascript:alert(1)'),
            Preview: hostileRendition('javascript:alert(1)'),
          },
        },
        {
          ...item,
          Renditions: {
            Status: 'Ready',
            Thumbnail: hostileRendition(`http://127.0.0.1:1/${HOSTILE}`),
            Preview: hostileRendition(`http://127.0.0.1:1/${HOSTILE}`),
          },
        },
        { ...item, Renditions: { Status: 'Failed', Reason: HOSTILE } },
      ],
    };
    const { body, csp } = builderPage(hostile, productSize(HOSTILE));
    expectNoInjection(body);
    expect(body).not.toContain('javascript:');
    expect(body.match(/<img /g)).toHaveLength(1);
    expect(csp).toContain("img-src 'self' http://127.0.0.1:1;");
  });

  it('says when the link is unknown', () => {
    expect(builderProblem({ status: 404, code: 'BuilderNotFound' })).toMatchObject({
      status: 404,
      title: 'We could not find these photos',
    });
  });
});

describe('product sizes', () => {
  it("rates an item at a size with the service's formula and thresholds (domain/print-quality.ts)", () => {
    // 1200 x 800 on a 10 x 15 cm print: the 150 mm side lies along the 1200 px side; 1200 / (150 / 25.4) = 203.2.
    expect(printQualityAt({ Width: 1200, Height: 800 }, productSize('10x15'))).toEqual({
      effectivePpi: 203,
      rating: 'Fair',
    });
    expect(printQualityAt({ Width: 3544, Height: 4724 }, productSize('30x40'))).toEqual({
      effectivePpi: 299,
      rating: 'Fair',
    });
  });

  it('falls back to the first size for an unknown id, and every id is distinct', () => {
    expect(productSize('nonsense')).toBe(PRODUCT_SIZES[0]);
    expect(productSize('a4')).toMatchObject({ widthMm: 210, heightMm: 297 });
    expect(new Set(PRODUCT_SIZES.map((size) => size.id)).size).toBe(PRODUCT_SIZES.length);
  });
});

describe('site plumbing', () => {
  it('starts only for a loopback http origin', () => {
    expect(loopbackAddress('http://127.0.0.1:3001')).toEqual({ host: '127.0.0.1', port: 3001 });
    expect(loopbackAddress('http://localhost:4000/')).toEqual({ host: 'localhost', port: 4000 });
    expect(loopbackAddress('http://[::1]:3001')).toEqual({ host: '::1', port: 3001 });
    expect(loopbackAddress('https://checkout.example.com')).toBeUndefined();
    expect(loopbackAddress('http://10.0.0.1:3001')).toBeUndefined();
    expect(loopbackAddress('http://127.0.0.1:3001/shop')).toBeUndefined();
    expect(loopbackAddress('not a url')).toBeUndefined();
  });

  it('sends no id from the URL that could name another path of the service', async () => {
    // Port 9 is closed: a request that went out would answer 502 Unreachable, not 404.
    const api = serviceApi('http://127.0.0.1:9', 'key');
    for (const id of ['..', '.', 'a/b', 'a%2Fb', 'a?b', '', 'x'.repeat(101)]) {
      expect(await api.getCheckout(id)).toMatchObject({ ok: false, status: 404 });
      expect(await api.completeCheckout(id, 'ref')).toMatchObject({ ok: false, status: 404 });
      expect(await api.getBuilder(id)).toMatchObject({ ok: false, status: 404 });
    }
    expect(await api.getCheckout('a'.repeat(32))).toMatchObject({ ok: false, status: 502, code: 'Unreachable' });
  });

  it('escapes interpolations, nested html stays markup', () => {
    expect(html`<p title="${HOSTILE}">${html`<b>${'<i>'}</b>`}</p>`.text).toBe(
      '<p title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&#39;&amp;"><b>&lt;i&gt;</b></p>',
    );
  });
});
