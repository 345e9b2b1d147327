import { endpoint } from '../http/endpoint.ts';
import { readWebhook } from '../services/webhook-service.ts';
import { toWebhookOut, webhookContracts } from '../contracts/webhooks.ts';

export const handler = endpoint(webhookContracts.get, async ({ principal, path }) =>
  toWebhookOut(await readWebhook(principal.apiKey, path.webhookId)),
);
