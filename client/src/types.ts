/**
 * Names for the shapes client code passes around, taken from the operations so they hold whether the
 * document names its schemas (`Schemas`) or writes them inline.
 */
import type { Operations } from './generated/api.ts';

type Response<K extends keyof Operations> = Operations[K]['response'];

export type Basket = Response<'getBasket'>;
export type BasketLine = Basket['Lines'][number];
export type CheckoutUrl = Response<'checkoutBasket'>;
export type Checkout = Response<'getCheckout'>['Checkout'];
export type Order = Response<'listOrders'>['Orders'][number];
export type OrderDetail = Response<'getOrder'>;
export type OrderStatus = Order['Status'];
export type Project = Response<'getProject'>;
export type LibraryItem = Response<'pushLibraryItem'>['LibraryItem'];
export type LibraryItemResult = Response<'pushLibraryItem'>;
export type LibraryItemsResult = Response<'pushLibraryItems'>;
export type UploadTicket = Response<'createLibraryUpload'>;
export type ResumableUpload = Response<'startMultipartUpload'>;
export type ResumableUploadStatus = Response<'getMultipartUpload'>;
export type LibraryItemRead = Response<'getLibraryItem'>['LibraryItem'];
export type PrintQuality = NonNullable<LibraryItemRead['PrintQuality']>;
export type Builder = Response<'getBuilder'>['Builder'];
