/**
 * The upload page's script and styles, bundled by esbuild from ./app.ts (Uppy, its CSS, the client
 * package) the first time the page is asked for, then served from memory. Built at run time because the
 * local site is a development stand-in: no build step to forget, and the bundle follows the sources.
 */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

export interface UploadBundle {
  js: string;
  css: string;
}

let bundled: Promise<UploadBundle> | undefined;

export function uploadBundle(): Promise<UploadBundle> {
  bundled ??= build({
    entryPoints: [fileURLToPath(new URL('./app.ts', import.meta.url))],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    outdir: 'upload',
    logLevel: 'silent',
    legalComments: 'none',
  }).then((result) => {
    const file = (ext: string) => result.outputFiles.find((output) => output.path.endsWith(ext))?.text ?? '';
    return { js: file('.js'), css: file('.css') };
  });
  // A failed build is built again on the next request, not cached.
  bundled.catch(() => (bundled = undefined));
  return bundled;
}
