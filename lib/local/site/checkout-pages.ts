/** The checkout page (what is charged, and the Pay button) and the confirmation page, as pure functions of the service's answers. */
import { html, page, type Html, type RenderedPage } from './html.ts';
import { dateTime, money, statusWords } from './format.ts';
import type { CheckoutView, OrderView } from './service-api.ts';

export const payPath = (checkoutId: string) => `/checkout/${encodeURIComponent(checkoutId)}/pay`;
export const confirmationPath = (checkoutId: string) => `/checkout/${encodeURIComponent(checkoutId)}/confirmation`;

function linesTable(caption: string, lines: CheckoutView['Lines'], total: number): Html {
  return html`<table>
<caption>${caption}</caption>
<thead><tr><th scope="col">Line</th><th scope="col">Product</th><th scope="col" class="number">Quantity</th><th scope="col" class="number">Price</th></tr></thead>
<tbody>
${lines.map(
  (line) =>
    html`<tr><td>${line.Id}</td><td><code>${line.ProjectGuid}</code></td><td class="number">${line.Quantity}</td><td class="number">${money(line.Total)}</td></tr>
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
${linesTable('What you are paying for', checkout.Lines, checkout.OrderTotal)}
<p>This checkout is valid until ${dateTime(checkout.ExpiresDateUtc)}.</p>
<form method="post" action="${payPath(checkout.CheckoutId)}">
<p>This is a test payment: no money moves.</p>
<button type="submit">Pay ${money(checkout.OrderTotal)}</button>
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
${linesTable('What you paid for', checkout.Lines, order.OrderTotal)}`,
  });
}
