/** The client errors of an image that cannot be stored as sent: too large, not an image. */
import { ACCEPTED_IMAGE_TYPES } from '../domain/library.ts';
import { payloadTooLarge, unsupportedMediaType } from '../shared/errors.ts';
import { config } from '../shared/config.ts';

/** Where an image too large for push or pull can go instead. */
export const largeFileHint = () =>
  `Upload larger images (up to ${config.uploadMaxBytes} bytes) with POST /library/upload and POST /library/upload/{ItemGuid}/complete.`;

export const imageTooLarge = (maxBytes: number) =>
  payloadTooLarge(`The image is over ${maxBytes} bytes. ${largeFileHint()}`);

export const notAnImage = (length: number) =>
  unsupportedMediaType(
    length === 0
      ? 'The file is empty.'
      : `The bytes are not an accepted image (${ACCEPTED_IMAGE_TYPES}), whatever the declared content type.`,
  );
