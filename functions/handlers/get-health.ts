import { endpoint } from '../shared/http.ts';

export const handler = endpoint({}, async () => ({ Status: 'ok' }));
