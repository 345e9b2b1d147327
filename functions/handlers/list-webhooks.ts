import { endpoint } from '../http/endpoint.ts';
import { listWebhooks } from '../services/webhook-service.ts';
import { toWebhookOut, webhookContracts } from '../contracts/webhooks.ts';

export const handler = endpoint(webhookContracts.list, async ({ principal }) => ({
  Webhooks: (await listWebhooks(principal.apiKey)).map(toWebhookOut),
}));
