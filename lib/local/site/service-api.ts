/**
 * The site's only way to the service: its public HTTP endpoints, called server-side with the site's
 * `site` API key. The key lives in this closure and goes nowhere else (never into a page or a redirect).
 */
import type * as z from 'zod/mini';
import type { CheckoutOut, OrderResultOut } from '../../../functions/contracts/order.ts';
import type { BuilderOut } from '../../../functions/contracts/library-read.ts';

export type CheckoutView = z.output<typeof CheckoutOut>['Checkout'];
export type OrderView = z.output<typeof OrderResultOut>['Order'];

export type BuilderView = z.output<typeof BuilderOut>['Builder'];
export type BuilderItemView = BuilderView['Items'][number];

/** The service's answer: the body on 2xx, else its `{Error:{Code,Message}}` (Code `Unreachable` when there was no answer). */
export type Answer<T> = { ok: true; value: T } | { ok: false; status: number; code: string; message: string };

export interface ServiceApi {
  getCheckout(checkoutId: string): Promise<Answer<CheckoutView>>;
  completeCheckout(checkoutId: string, paymentReference: string): Promise<Answer<OrderView>>;
  getBuilder(token: string): Promise<Answer<BuilderView>>;
  /** The customer's cancel: with their bearer token, not the site's key (only the order's customer may cancel). */
  cancelOrder(orderGuid: string, bearerToken: string): Promise<Answer<OrderView>>;
}

const API_KEY_HEADER = 'X-SERVICE-API-Key';
/** Checkout ids and builder tokens are hex today; letters, digits, `-` and `_` leave room without allowing `.` or `/`. */
const SAFE_ID = /^[A-Za-z0-9_-]{1,100}$/;

export function serviceApi(serviceUrl: string, apiKey: string): ServiceApi {
  const base = serviceUrl.replace(/\/+$/, '');

  async function call<T>(
    method: 'GET' | 'POST',
    path: string,
    pick: (body: any) => T,
    json?: unknown,
    credential: Record<string, string> = { [API_KEY_HEADER]: apiKey },
  ): Promise<Answer<T>> {
    const headers: Record<string, string> = { Accept: 'application/json', ...credential };
    if (json !== undefined) headers['Content-Type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers,
        ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
        redirect: 'error',
      });
    } catch (error) {
      return {
        ok: false,
        status: 502,
        code: 'Unreachable',
        message: `The service did not answer: ${(error as Error).message}`,
      };
    }
    const body: any = await response.json().catch(() => undefined);
    if (response.ok && body !== undefined) return { ok: true, value: pick(body) };
    const error = body?.Error ?? {};
    return {
      ok: false,
      status: response.status,
      code: String(error.Code ?? 'UnexpectedAnswer'),
      message: String(error.Message ?? `HTTP ${response.status}`),
    };
  }

  /**
   * Ids and tokens come from the shopper's URL. Only URL-safe ones are sent, so none can become another path
   * (`..` would, even encoded); anything else is not a link the service handed out.
   */
  const withId = <T>(id: string, send: (segment: string) => Promise<Answer<T>>): Promise<Answer<T>> =>
    SAFE_ID.test(id)
      ? send(id)
      : Promise.resolve({ ok: false, status: 404, code: 'NotFound', message: 'Not a link the service hands out.' });
  return {
    getCheckout: (checkoutId) =>
      withId(checkoutId, (id) => call('GET', `/checkout/${id}`, (body) => body.Checkout as CheckoutView)),
    completeCheckout: (checkoutId, PaymentReference) =>
      withId(checkoutId, (id) =>
        call('POST', `/checkout/${id}/complete`, (body) => body.Order as OrderView, { PaymentReference }),
      ),
    getBuilder: (token) => withId(token, (id) => call('GET', `/builder/${id}`, (body) => body.Builder as BuilderView)),
    cancelOrder: (orderGuid, bearerToken) =>
      withId(orderGuid, (id) =>
        call('POST', `/order/${id}/cancel`, (body) => body.Order as OrderView, undefined, {
          Authorization: `Bearer ${bearerToken}`,
        }),
      ),
  };
}
