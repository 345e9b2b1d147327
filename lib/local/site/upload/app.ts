/**
 * The upload page's script (bundled for the browser by ./bundle.ts): Uppy's Dashboard with resumable
 * uploads through the client package's adapter, in one line. The library calls go to this site's own
 * `/upload/api/` (./proxy.ts), which adds the site's library key: the key never reaches the browser. The
 * parts go straight to the bucket. Once every file is in, the page links to the builder page of them all.
 */
import Uppy from '@uppy/core';
import Dashboard from '@uppy/dashboard';
import AwsS3 from '@uppy/aws-s3';
import '@uppy/core/css/style.min.css';
import '@uppy/dashboard/css/style.min.css';
import { libraryUploads, PhotoCommerceClient } from '../../../../client/src/index.ts';

// The proxy replaces whatever key comes with its own; the client only needs one to send.
const client = new PhotoCommerceClient({ baseUrl: `${location.origin}/upload/api`, apiKey: 'added-by-the-site' });

const uppy = new Uppy({ restrictions: { allowedFileTypes: ['image/*', '.heic', '.heif', '.avif'] } })
  .use(Dashboard, { inline: true, target: '#uploader', proudlyDisplayPoweredByUppy: false, height: 420 })
  .use(AwsS3, libraryUploads(client));

const done = document.getElementById('done') as HTMLElement;
const link = document.getElementById('builder-link') as HTMLAnchorElement;

type UploadResult = Parameters<Parameters<typeof uppy.on<'complete'>>[1]>[0];

async function showBuilderLink(result: UploadResult): Promise<void> {
  const items = (result.successful ?? []).map(
    (file) => file.response?.body as { ProductBuilderUrl: string; LibraryItem: { ItemGuid: string } } | undefined,
  );
  const uploaded = items.filter((item) => item !== undefined);
  if (uploaded.length === 0) return;
  // One file: its own builder link. Several: one link naming them all.
  const href =
    uploaded.length === 1
      ? (uploaded[0] as { ProductBuilderUrl: string }).ProductBuilderUrl
      : (await client.library.builderUrlForItems(uploaded.map((item) => item.LibraryItem.ItemGuid))).ProductBuilderUrl;
  link.href = href;
  link.textContent =
    uploaded.length === 1
      ? 'Open your photo in the product builder'
      : `Open your ${uploaded.length} photos in the product builder`;
  done.hidden = false;
  link.focus();
}

// A failed link (several photos need a call) is said in Uppy's own status bar, not lost as a rejection.
uppy.on('complete', (result) => {
  showBuilderLink(result).catch((error: unknown) => {
    uppy.info(
      `The product builder link could not be made: ${error instanceof Error ? error.message : String(error)}`,
      'error',
      10_000,
    );
  });
});
