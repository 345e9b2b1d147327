/**
 * The local stand-in for the separate checkout and product builder site: a plain HTTP server whose pages
 * call the service's public endpoints server-side (service-api.ts). Pages work without JavaScript: paying is
 * a form POST answered with a redirect to the confirmation (post/redirect/get).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { closeServer, listenLocally } from '../listen.ts';
import { builderPage } from './builder-page.ts';
import { checkoutPage, confirmationPage, confirmationPath } from './checkout-pages.ts';
import type { RenderedPage } from './html.ts';
import { productSize } from './product-sizes.ts';
import {
  builderProblem,
  cancelProblem,
  checkoutProblem,
  notFoundProblem,
  problemPage,
  temporaryProblem,
  type Problem,
} from './problems.ts';
import { serviceApi, type ServiceApi } from './service-api.ts';
import { SITE_CSS } from './style.ts';
import { FAVICON_PATHS, FAVICON_SVG } from './favicon.ts';
import { uploadBundle } from './upload/bundle.ts';
import { UPLOAD_SCRIPT, UPLOAD_STYLESHEET, uploadPage } from './upload/page.ts';
import { forwardUploadCall, UPLOAD_API_PREFIX } from './upload/proxy.ts';

export interface LocalSiteOptions {
  /** Base URL of the service the site calls. */
  serviceUrl: string;
  /** The site's API key (scope `site`); stays on this server. */
  apiKey: string;
  /**
   * The upload page (`/upload`): the site's library API key (it too stays on this server: the page's calls
   * go through ./upload/proxy.ts) and the origin of the storage the parts are PUT to (its CSP allows it).
   */
  uploads?: { libraryApiKey: string; storageOrigin: string };
  /** 0 picks a free port. */
  port?: number;
  host?: string;
}

export interface LocalSite {
  url: string;
  close(): Promise<void>;
}

/** The test payment reference: one per checkout, so a repeated Pay is the same payment (completion is idempotent). */
export const testPaymentReference = (checkoutId: string) => `local-test-payment-${checkoutId}`;

const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  // Checkout ids and builder tokens are secrets in the URL: no Referer carries them to the image storage.
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

function sendPage(response: ServerResponse, status: number, rendered: RenderedPage): void {
  response.writeHead(status, {
    ...SECURITY_HEADERS,
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': rendered.csp,
  });
  response.end(rendered.body);
}

const sendProblem = (response: ServerResponse, problem: Problem) =>
  sendPage(response, problem.status, problemPage(problem));

function redirect(response: ServerResponse, location: string): void {
  response.writeHead(303, { ...SECURITY_HEADERS, Location: location });
  response.end();
}

async function showCheckout(api: ServiceApi, checkoutId: string, response: ServerResponse): Promise<void> {
  const answer = await api.getCheckout(checkoutId);
  if (!answer.ok) return sendProblem(response, checkoutProblem(answer));
  const checkout = answer.value;
  if (checkout.Status === 'Completed') return redirect(response, confirmationPath(checkoutId));
  if (checkout.Status === 'BasketChanged')
    return sendProblem(response, checkoutProblem({ status: 409, code: 'BasketChanged' }));
  sendPage(response, 200, checkoutPage(checkout));
}

async function pay(api: ServiceApi, checkoutId: string, response: ServerResponse): Promise<void> {
  const answer = await api.completeCheckout(checkoutId, testPaymentReference(checkoutId));
  if (!answer.ok) return sendProblem(response, checkoutProblem(answer));
  redirect(response, confirmationPath(checkoutId));
}

/**
 * The confirmation reads the order back by repeating the completion with the same payment reference: the
 * service answers the existing order, with its current status, and the site's `site` key has no other
 * read of it. Only a checkout the service reports Completed is repeated, so this page never pays.
 */
async function showConfirmation(api: ServiceApi, checkoutId: string, response: ServerResponse): Promise<void> {
  const answer = await api.getCheckout(checkoutId);
  if (!answer.ok) return sendProblem(response, checkoutProblem(answer));
  const checkout = answer.value;
  if (checkout.Status === 'Open') return redirect(response, `/checkout/${encodeURIComponent(checkoutId)}`);
  if (checkout.Status !== 'Completed')
    return sendProblem(response, checkoutProblem({ status: 409, code: 'BasketChanged' }));
  const order = await api.completeCheckout(checkoutId, testPaymentReference(checkoutId));
  if (!order.ok) return sendProblem(response, checkoutProblem(order));
  sendPage(response, 200, confirmationPage(checkout, order.value));
}

/** The form's `token` field (URL-encoded body); undefined when absent or empty. */
async function tokenOf(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > 16_384) return undefined;
    chunks.push(chunk as Buffer);
  }
  const token = new URLSearchParams(Buffer.concat(chunks).toString('utf8')).get('token')?.trim();
  return token === undefined || token === '' ? undefined : token;
}

/** The Cancel button: the order read back as the confirmation reads it, then cancelled with the customer's token. */
async function cancel(
  api: ServiceApi,
  checkoutId: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const token = await tokenOf(request);
  if (token === undefined) return sendProblem(response, cancelProblem({ status: 401, code: 'Unauthorized' }));
  const order = await api.completeCheckout(checkoutId, testPaymentReference(checkoutId));
  if (!order.ok) return sendProblem(response, checkoutProblem(order));
  const cancelled = await api.cancelOrder(order.value.OrderGuid, token);
  if (!cancelled.ok) return sendProblem(response, cancelProblem(cancelled));
  redirect(response, confirmationPath(checkoutId));
}

async function showBuilder(
  api: ServiceApi,
  token: string,
  sizeId: string | null,
  response: ServerResponse,
): Promise<void> {
  const answer = await api.getBuilder(token);
  if (!answer.ok) return sendProblem(response, builderProblem(answer));
  sendPage(response, 200, builderPage(answer.value, productSize(sizeId)));
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

async function serveUploads(
  uploads: NonNullable<LocalSiteOptions['uploads']>,
  path: string,
  response: ServerResponse,
): Promise<boolean> {
  if (path === '/upload') {
    sendPage(response, 200, uploadPage(uploads.storageOrigin));
    return true;
  }
  const type = path === UPLOAD_SCRIPT ? 'text/javascript' : path === UPLOAD_STYLESHEET ? 'text/css' : undefined;
  if (type === undefined) return false;
  const bundle = await uploadBundle();
  response.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': `${type}; charset=utf-8` });
  response.end(type === 'text/css' ? bundle.css : bundle.js);
  return true;
}

async function route(
  api: ServiceApi,
  uploads: LocalSiteOptions['uploads'],
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://site.invalid');
  const method = request.method ?? 'GET';
  // Only the cancel form's body holds something (its token, read by its route); any other is read to the end
  // unlooked at, so the connection can be reused.
  if (!(method === 'POST' && url.pathname.endsWith('/cancel'))) request.resume();
  if (uploads && method === 'GET' && (await serveUploads(uploads, url.pathname, response))) return;
  const parts = url.pathname.split('/').slice(1);
  const id = parts[1] === undefined ? undefined : decodeSegment(parts[1]);
  if (method === 'GET' && url.pathname === '/site.css') {
    response.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/css; charset=utf-8' });
    return void response.end(SITE_CSS);
  }
  if (method === 'GET' && FAVICON_PATHS.includes(url.pathname)) {
    // Not no-store: the icon never changes while the site runs, and browsers ask for it on every page.
    response.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'image/svg+xml', 'Cache-Control': 'max-age=3600' });
    return void response.end(FAVICON_SVG);
  }
  if (id && parts[0] === 'checkout') {
    if (method === 'GET' && parts.length === 2) return showCheckout(api, id, response);
    if (method === 'POST' && parts.length === 3 && parts[2] === 'pay') return pay(api, id, response);
    if (method === 'POST' && parts.length === 3 && parts[2] === 'cancel') return cancel(api, id, request, response);
    if (method === 'GET' && parts.length === 3 && parts[2] === 'confirmation')
      return showConfirmation(api, id, response);
  }
  if (id && parts[0] === 'builder' && parts.length === 2 && method === 'GET')
    return showBuilder(api, id, url.searchParams.get('size'), response);
  sendProblem(response, notFoundProblem());
}

export async function startLocalSite(options: LocalSiteOptions): Promise<LocalSite> {
  const api = serviceApi(options.serviceUrl, options.apiKey);
  const { uploads } = options;
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] as string;
    const handled =
      uploads && path.startsWith(`${UPLOAD_API_PREFIX}/`)
        ? forwardUploadCall(
            options.serviceUrl,
            uploads.libraryApiKey,
            request,
            response,
            path.slice(UPLOAD_API_PREFIX.length),
          )
        : route(api, uploads, request, response);
    handled.catch((error: unknown) => {
      process.stderr.write(`local site: ${String(error)}\n`);
      if (!response.headersSent) sendProblem(response, temporaryProblem());
      else response.destroy();
    });
  });
  const url = await listenLocally(server, options.port, options.host);
  return { url, close: () => closeServer(server) };
}
