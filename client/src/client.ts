/**
 * `PhotoCommerceClient`: one method per endpoint, grouped by resource. Types come from the generated
 * `Operations` (the OpenAPI document); behaviour (credentials, retries, idempotency, dates, errors) from
 * the transport.
 */
import type { OperationId, Operations } from './generated/api.ts';
import { Transport } from './transport.ts';
import type { CallOptions, ClientOptions } from './options.ts';
import { Paginated } from './paginate.ts';
import { fieldPart, imagePart, multipartBody, type Image } from './upload-body.ts';

type ResponseOf<K extends OperationId> = Operations[K]['response'];
type BodyOf<K extends OperationId> = Operations[K]['body'];
/** List filters; `cursor` is the iterator's business. */
type ListQuery<K extends OperationId> = Omit<Operations[K]['query'], 'cursor'>;

type ItemOf<Page, Key extends keyof Page> = Page[Key] extends ReadonlyArray<infer Item> ? Item : never;

/** A print size in millimetres, for an item read's `PrintQuality`: both sides or neither. */
export interface PrintSize {
  printWidthMm: number | string;
  printHeightMm: number | string;
}

export class PhotoCommerceClient {
  readonly #transport: Transport;

  constructor(options: ClientOptions) {
    this.#transport = new Transport(options);
  }

  /** GET /health */
  health(options?: CallOptions): Promise<ResponseOf<'getHealth'>> {
    return this.#transport.call('getHealth', {}, options);
  }

  /** GET /openapi.json: the service's OpenAPI document (returned as is; no date conversion). */
  openApi(options?: CallOptions): Promise<ResponseOf<'getOpenapi'>> {
    return this.#transport.call('getOpenapi', {}, options);
  }

  /** A list as an async iterator over its items, following `NextCursor` from page to page. */
  #list<
    K extends 'listBaskets' | 'listOrders' | 'listLibrary' | 'listWebhookDeliveries',
    Key extends keyof ResponseOf<K>,
  >(operation: K, key: Key, query: object, options?: CallOptions, path?: Record<string, string>) {
    return new Paginated<ItemOf<ResponseOf<K>, Key>, ResponseOf<K>>(
      (cursor) =>
        this.#transport.call(
          operation,
          {
            ...(path !== undefined ? { path } : {}),
            query: {
              ...(query as Record<string, string | number | undefined>),
              ...(cursor !== undefined ? { cursor } : {}),
            },
          },
          options,
        ),
      (page) => page[key] as ReadonlyArray<ItemOf<ResponseOf<K>, Key>>,
    );
  }

  /** The user's baskets (bearer token). */
  readonly baskets = {
    /** POST /basket. Idempotent: a retry never creates a second basket. */
    create: (options?: CallOptions) => this.#transport.call('createBasket', {}, options),
    /** GET /baskets, as an async iterator: `for await (const basket of client.baskets.list())`. */
    list: (query: ListQuery<'listBaskets'> = {}, options?: CallOptions) =>
      this.#list('listBaskets', 'Baskets', query, options),
    get: (basketGuid: string, options?: CallOptions) =>
      this.#transport.call('getBasket', { path: { basketGuid } }, options),
    delete: (basketGuid: string, options?: CallOptions) =>
      this.#transport.call('deleteBasket', { path: { basketGuid } }, options),
    /** POST /basket/{guid}/line: adds a line, or adds to the line of that project. Idempotent. */
    addLine: (basketGuid: string, line: BodyOf<'addBasketLine'>, options?: CallOptions) =>
      this.#transport.call('addBasketLine', { path: { basketGuid }, body: line }, options),
    updateLine: (
      basketGuid: string,
      lineId: number | string,
      line: BodyOf<'updateBasketLine'>,
      options?: CallOptions,
    ) => this.#transport.call('updateBasketLine', { path: { basketGuid, lineId }, body: line }, options),
    deleteLine: (basketGuid: string, lineId: number | string, options?: CallOptions) =>
      this.#transport.call('deleteBasketLine', { path: { basketGuid, lineId } }, options),
    /** POST /basket/{guid}/checkout: the URL to send the user to. Idempotent. */
    checkout: (basketGuid: string, options?: CallOptions) =>
      this.#transport.call('checkoutBasket', { path: { basketGuid } }, options),
  };

  /** The user's orders (bearer token): read, cancel; status changes take a `fulfilment` API key. */
  readonly orders = {
    /** GET /orders, as an async iterator; `{ projectguid }` keeps orders with that project. */
    list: (query: ListQuery<'listOrders'> = {}, options?: CallOptions) =>
      this.#list('listOrders', 'Orders', query, options),
    get: (orderGuid: string, options?: CallOptions) =>
      this.#transport.call('getOrder', { path: { orderGuid } }, options),
    updateStatus: (orderGuid: string, body: BodyOf<'updateOrderStatus'>, options?: CallOptions) =>
      this.#transport.call('updateOrderStatus', { path: { orderGuid }, body }, options),
    /** POST /order/{guid}/cancel: the user's cancel while the order is OrderReceived (409 after). Idempotent. */
    cancel: (orderGuid: string, options?: CallOptions) =>
      this.#transport.call('cancelOrder', { path: { orderGuid } }, options),
    /** An artwork item's `DownloadLink` followed (no credential sent: the link is its own) to the original's bytes. */
    original: (downloadLink: string, options?: CallOptions) =>
      this.#transport.getWithoutCredentials(downloadLink, options),
    /**
     * GET /order/{guid}/artwork (`fulfilment` API key), as an async iterator over the order's lines, each with
     * the originals it prints and their presigned downloads (valid 15 minutes: download as you go).
     */
    artwork: (orderGuid: string, options?: CallOptions) =>
      new Paginated<ItemOf<ResponseOf<'getOrderArtwork'>, 'Lines'>, ResponseOf<'getOrderArtwork'>>(
        (cursor) =>
          this.#transport.call(
            'getOrderArtwork',
            { path: { orderGuid }, query: cursor !== undefined ? { cursor } : {} },
            options,
          ),
        (page) => page.Lines,
      ),
  };

  /** Project prices (`catalog` API key). */
  readonly projects = {
    put: (projectGuid: string, body: BodyOf<'putProject'>, options?: CallOptions) =>
      this.#transport.call('putProject', { path: { projectGuid }, body }, options),
    get: (projectGuid: string, options?: CallOptions) =>
      this.#transport.call('getProject', { path: { projectGuid } }, options),
  };

  /** The product builder site's call (`site` API key). */
  readonly builders = {
    /** GET /builder/{token}: the items of a product builder URL (`token` is its last path segment), in minting order, with download URLs. */
    get: (token: string, options?: CallOptions) => this.#transport.call('getBuilder', { path: { token } }, options),
  };

  /** The checkout site's calls (`site` API key). */
  readonly checkouts = {
    get: (checkoutId: string, options?: CallOptions) =>
      this.#transport.call('getCheckout', { path: { checkoutId } }, options),
    /** Turns a paid checkout into its order; completing again answers the same order. */
    complete: (checkoutId: string, body: BodyOf<'completeCheckout'>, options?: CallOptions) =>
      this.#transport.call('completeCheckout', { path: { checkoutId }, body }, options),
  };

  /** The image library: the app's library API key, except `claim`, `list` and `delete` (the signed-in user's bearer token). */
  readonly library = {
    /** GET /library/{itemGuid}: metadata and a download URL; with a print size also its `PrintQuality`. */
    get: (itemGuid: string, print?: PrintSize, options?: CallOptions) =>
      this.#transport.call(
        'getLibraryItem',
        {
          path: { itemGuid },
          ...(print ? { query: { printWidthMm: print.printWidthMm, printHeightMm: print.printHeightMm } } : {}),
        },
        options,
      ),
    /** POST /library/push: one image from a Blob, File, Uint8Array or stream. Idempotent. */
    push: async (image: Image, options?: CallOptions) =>
      this.#transport.call('pushLibraryItem', { multipart: multipartBody([await imagePart('image', image)]) }, options),
    /** POST /library/multi/push: several images; the answer's items are in the same order. Idempotent. */
    pushMany: async (images: readonly Image[], options?: CallOptions) =>
      this.#transport.call(
        'pushLibraryItems',
        {
          multipart: multipartBody(
            await Promise.all(images.map((image, index) => imagePart(`image${index + 1}`, image))),
          ),
        },
        options,
      ),
    /** POST /library/pull: the service fetches the image at `url`. Idempotent. */
    pull: (url: string, options?: CallOptions) =>
      this.#transport.call('pullLibraryItem', { body: { Url: url } }, options),
    /** POST /library/multi/pull: several URLs; the answer's items are in the same order. Idempotent. */
    pullMany: (urls: readonly string[], options?: CallOptions) =>
      this.#transport.call('pullLibraryItems', { body: { Urls: [...urls] } }, options),
    /** POST /library/{itemGuid}/builder: a product builder URL for one item. */
    builderUrl: (itemGuid: string, options?: CallOptions) =>
      this.#transport.call('getItemBuilderUrl', { path: { itemGuid } }, options),
    /** POST /library/builder: a product builder URL for several items. */
    builderUrlForItems: (itemGuids: readonly string[], options?: CallOptions) =>
      this.#transport.call('getItemsBuilderUrl', { body: { Guids: [...itemGuids] } }, options),
    /** POST /library/upload: a presigned upload ticket for an image above the push cap. */
    createUpload: (options?: CallOptions) => this.#transport.call('createLibraryUpload', {}, options),
    /** POST /library/upload/{itemGuid}/complete: checks the uploaded object and adds it to the library. */
    completeUpload: (itemGuid: string, options?: CallOptions) =>
      this.#transport.call('completeLibraryUpload', { path: { itemGuid } }, options),
    /** A large image in three steps: ticket, upload straight to storage, complete. */
    upload: async (image: Image, options?: CallOptions) => {
      const ticket = await this.library.createUpload(options);
      const fields = Object.entries(ticket.Upload.Fields).map(([name, value]) => fieldPart(name, value));
      const form = multipartBody([...fields, await imagePart('file', image)]);
      await this.#transport.postToStorage(ticket.Upload.Url, form, options);
      return this.library.completeUpload(ticket.ItemGuid, options);
    },
    /** POST /library/uploads: starts a resumable upload in parts; answers its ItemGuid, PartSize and PartCount. */
    startResumableUpload: (file: BodyOf<'startMultipartUpload'>, options?: CallOptions) =>
      this.#transport.call('startMultipartUpload', { body: file }, options),
    /** POST /library/uploads/{itemGuid}/parts: presigned PUT URLs for up to 100 parts. */
    signUploadParts: (itemGuid: string, partNumbers: readonly number[], options?: CallOptions) =>
      this.#transport.call(
        'signMultipartParts',
        { path: { itemGuid }, body: { PartNumbers: [...partNumbers] } },
        options,
      ),
    /** GET /library/uploads/{itemGuid}: the upload and the parts stored so far, to resume. */
    getResumableUpload: (itemGuid: string, options?: CallOptions) =>
      this.#transport.call('getMultipartUpload', { path: { itemGuid } }, options),
    /** POST /library/uploads/{itemGuid}/complete: every part's ETag; answers as a push does. Repeating it answers the same. */
    completeResumableUpload: (itemGuid: string, body: BodyOf<'completeMultipartUpload'>, options?: CallOptions) =>
      this.#transport.call('completeMultipartUpload', { path: { itemGuid }, body }, options),
    /** DELETE /library/uploads/{itemGuid}: aborts the upload; its parts are removed. */
    abortResumableUpload: (itemGuid: string, options?: CallOptions) =>
      this.#transport.call('abortMultipartUpload', { path: { itemGuid } }, options),
    /** POST /library/claim: moves the items of a product builder URL into the user's library; repeating it answers the same. */
    claim: (productBuilderUrl: string, options?: CallOptions) =>
      this.#transport.call('claimLibraryItems', { body: { ProductBuilderUrl: productBuilderUrl } }, options),
    /** GET /library, as an async iterator over the user's items, newest first. */
    list: (query: ListQuery<'listLibrary'> = {}, options?: CallOptions) =>
      this.#list('listLibrary', 'LibraryItems', query, options),
    /** DELETE /library/{itemGuid}: erases one of the user's items, its record and its image. */
    delete: (itemGuid: string, options?: CallOptions) =>
      this.#transport.call('deleteLibraryItem', { path: { itemGuid } }, options),
  };

  /**
   * Webhooks (any API key; each key manages its own). Deliveries are signed as Standard Webhooks says:
   * verify them with the `standardwebhooks` package and the `Secret` answered on creation or rotation
   * (README, Webhooks).
   */
  readonly webhooks = {
    /** POST /webhooks: answers the webhook and its `Secret`, which is never answered again. */
    create: (body: BodyOf<'createWebhook'>, options?: CallOptions) =>
      this.#transport.call('createWebhook', { body }, options),
    /** GET /webhooks: this key's webhooks (at most 20). */
    list: (options?: CallOptions) => this.#transport.call('listWebhooks', {}, options),
    get: (webhookId: string, options?: CallOptions) =>
      this.#transport.call('getWebhook', { path: { webhookId } }, options),
    /** PUT /webhooks/{webhookId}: changes its Url, EventTypes or Status. */
    update: (webhookId: string, body: BodyOf<'updateWebhook'>, options?: CallOptions) =>
      this.#transport.call('updateWebhook', { path: { webhookId }, body }, options),
    delete: (webhookId: string, options?: CallOptions) =>
      this.#transport.call('deleteWebhook', { path: { webhookId } }, options),
    /** POST /webhooks/{webhookId}/secret: a new `Secret`; for 24 hours deliveries are signed with both. */
    rotateSecret: (webhookId: string, options?: CallOptions) =>
      this.#transport.call('rotateWebhookSecret', { path: { webhookId } }, options),
    /** GET /webhooks/{webhookId}/deliveries, as an async iterator over its deliveries, newest first. */
    deliveries: (webhookId: string, query: ListQuery<'listWebhookDeliveries'> = {}, options?: CallOptions) =>
      this.#list('listWebhookDeliveries', 'Deliveries', query, options, { webhookId }),
    /** POST /webhooks/{webhookId}/deliveries/{deliveryId}/redeliver: the same event and webhook-id, signed anew. */
    redeliver: (webhookId: string, deliveryId: string, options?: CallOptions) =>
      this.#transport.call('redeliverWebhookDelivery', { path: { webhookId, deliveryId } }, options),
  };
}
