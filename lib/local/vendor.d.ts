// Minimal types for s3rver, which ships none.
declare module 's3rver' {
  import type { AddressInfo } from 'node:net';
  interface S3rverOptions {
    address?: string;
    port?: number;
    directory: string;
    silent?: boolean;
    resetOnClose?: boolean;
    configureBuckets?: { name: string; configs?: (string | Buffer)[] }[];
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
    /** Koa's middleware list, composed when the server starts (lib/local/s3-multipart.ts goes before the router). */
    middleware: unknown[];
    /** The FilesystemStore (lib/local/s3-multipart-objects.ts wraps some of its methods). */
    store: unknown;
  }
}
