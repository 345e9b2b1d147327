import { endpoint } from '../http/endpoint.ts';

export const handler = endpoint({}, async () => ({ Status: 'ok' }));
