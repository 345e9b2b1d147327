/** The part of s3rver's Koa context that our own S3 middleware (the checking front, the multipart calls) uses. */
import type { IncomingMessage } from 'node:http';

export interface S3Context {
  method: string;
  path: string;
  querystring: string;
  query: Record<string, string | string[] | undefined>;
  headers: Record<string, string | string[] | undefined>;
  req: IncomingMessage;
  params?: Record<string, string>;
  status: number;
  body: unknown;
  set(name: string, value: string): void;
  is(type: string): string | false | null;
  store: {
    putObject(object: unknown): Promise<{ md5: string; size: number }>;
    getBucket(bucket: string): Promise<unknown>;
    /** A bucket's configuration of one kind (`cors`, ...) as s3rver parses it, or null when it has none. */
    getSubresource(bucket: string, key: undefined, kind: 'cors'): Promise<{ rules: unknown[] } | null>;
  };
}
