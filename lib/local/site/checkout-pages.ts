/** The checkout page (what is charged, and the Pay button) and the confirmation page, as pure functions of the service's answers. */
import { html, page, type Html, type RenderedPage } from './html.ts';
import { dateTime, moneyIn, shortGuid, statusWords } from './format.ts';
import type { CheckoutView, OrderView } from './service-api.ts';

export const payPath = (checkoutId: string) => `/checkout/${encodeURIComponent(checkoutId)}/pay`;
export const confirmationPath = (checkoutId: string) => `/checkout/${encodeURIComponent(checkoutId)}/confirmation`;
export const cancelPath = (checkoutId: string) => `/checkout/${encodeURIComponent(checkoutId)}/cancel`;

/**
 * The Cancel button, while the customer may still cancel (the lab has not started: OrderReceived). A real
 * site has its signed-in customer's bearer token; this stand-in has no sign-in, so the form asks for it
 * (`npm run -s token -- --user <id>`) and the site sends it with the cancel, server-side.
 */
const cancelForm = (checkoutId: string, order: OrderView): Html | string =>
  order.Status !== 'OrderReceived'
    ? ''
    : html`<form method="post" action="${cancelPath(checkoutId)}" class="cancel">
<h2>Changed your mind?</h2>
<p>You can cancel this order until we start making it; the payment is then refunded.</p>
<p><label for="bearer-token">Your sign-in token</label> <input id="bearer-token" name="token" type="password" autocomplete="off" required></p>
<button type="submit">Cancel order</button>
</form>`;

/**
 * The lines as a table: the product's name (a project without one says so) with its guid shortened in small
 * type, then quantity, unit price and line total in the checkout's currency. The unit price is the line's
 * `Total / Quantity`, exact for prices of two fraction digits. Narrow screens show each line as a block
 * (style.ts), so no guid or column forces a horizontal scroll.
 */
function linesTable(caption: string, checkout: Pick<CheckoutView, 'Lines' | 'Currency'>, total: number): Html {
  const money = moneyIn(checkout.Currency);
  return html`<table class="lines">
<caption>${caption}</caption>
<thead><tr><th scope="col">Product</th><th scope="col" class="number">Quantity</th><th scope="col" class="number">Unit price</th><th scope="col" class="number">Line total</th></tr></thead>
<tbody>
${checkout.Lines.map(
  (line) =>
    html`<tr><th scope="row"><span class="product${line.Name === null ? ' unnamed' : ''}" data-name>${line.Name ?? 'Unnamed product'}</span> <small class="guid" title="${line.ProjectGuid}">${shortGuid(line.ProjectGuid)}</small></th><td class="number" data-label="Quantity" data-quantity>${line.Quantity}</td><td class="number" data-label="Unit price" data-unit-price>${money(line.Total / line.Quantity)}</td><td class="number" data-label="Line total" data-line-total>${money(line.Total)}</td></tr>
`,
)}</tbody>
<tfoot><tr><th scope="row" colspan="3">Total</th><td class="number" data-total>${money(total)}</td></tr></tfoot>
</table>`;
}

/** An open checkout: the lines and total being charged for, and a plain form that pays (no script needed). */
export function checkoutPage(checkout: CheckoutView): RenderedPage {
  return page({
    title: 'Pay for your order',
    main: html`<h1>Pay for your order</h1>
${linesTable('What you are paying for', checkout, checkout.OrderTotal)}
<p>This checkout is valid until ${dateTime(checkout.ExpiresDateUtc)}.</p>
<form method="post" action="${payPath(checkout.CheckoutId)}">
<p>This is a test payment: no money moves.</p>
<button type="submit">Pay ${moneyIn(checkout.Currency)(checkout.OrderTotal)}</button>
</form>`,
  });
}

/** A paid checkout: the order it became. */
export function confirmationPage(checkout: CheckoutView, order: OrderView): RenderedPage {
  return page({
    title: 'Order confirmed',
    main: html`<h1>Thank you, your order is confirmed</h1>
<div class="success" role="status"><p>Your payment was received and your order was placed.</p></div>
<dl class="facts">
<dt>Order number</dt><dd><code data-order-guid>${order.OrderGuid}</code></dd>
<dt>Status</dt><dd data-order-status="${order.Status}">${statusWords(order.Status)}</dd>
<dt>Placed</dt><dd>${dateTime(order.CreatedDateUtc)}</dd>
</dl>
${linesTable('What you paid for', checkout, order.OrderTotal)}
${cancelForm(checkout.CheckoutId, order)}`,
  });
}
