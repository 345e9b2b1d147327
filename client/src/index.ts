export { PhotoCommerceClient, type PrintSize } from './client.ts';
export {
  libraryUploads,
  partSizeFor,
  type LibraryUploadOptions,
  type LibraryUploadSettings,
  type UppyFileLike,
} from './uppy.ts';
export type { ClientOptions, CallOptions, RetryInfo } from './options.ts';
export { ApiError, ConnectionError, TimeoutError, PhotoCommerceError, type ItemFailure } from './errors.ts';
export { Paginated } from './paginate.ts';
export type { Image, ImageData, ImageInput } from './upload-body.ts';
export { fromWireDate, toWireDate } from './dates.ts';
export type { Operations, OperationId, Schemas } from './generated/api.ts';
export type * from './types.ts';
