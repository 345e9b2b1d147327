import { endpoint } from '../http/endpoint.ts';
import { buildOpenApi } from '../contracts/openapi.ts';

let document: Record<string, unknown> | undefined;

export const handler = endpoint({}, async () => (document ??= buildOpenApi()));
