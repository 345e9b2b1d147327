/** The upload page: Uppy's Dashboard (the bundled ./app.ts), and a link to the builder once the photos are in. */
import { html, page, type RenderedPage } from '../html.ts';

export const UPLOAD_SCRIPT = '/upload/app.js';
export const UPLOAD_STYLESHEET = '/upload/app.css';

export function uploadPage(storageOrigin: string): RenderedPage {
  return page({
    title: 'Upload photos',
    script: { src: UPLOAD_SCRIPT, stylesheet: UPLOAD_STYLESHEET, connectOrigins: [storageOrigin] },
    main: html`<h1>Upload photos</h1>
<p>Large photos go up in parts: if the connection drops, the upload carries on from the last part stored.</p>
<div id="uploader"></div>
<p id="done" hidden><a id="builder-link" href="/">Open the product builder</a></p>
<noscript><p>Uploading needs JavaScript.</p></noscript>`,
  });
}
