import { endpoint } from '../http/endpoint.ts';
import { rotateWebhookSecret } from '../services/webhook-service.ts';
import { webhookContracts } from '../contracts/webhooks.ts';

export const handler = endpoint(webhookContracts.rotateSecret, async ({ principal, path }) => ({
  Secret: await rotateWebhookSecret(principal.apiKey, path.webhookId),
}));
