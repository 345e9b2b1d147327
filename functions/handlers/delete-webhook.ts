import { endpoint } from '../http/endpoint.ts';
import { removeWebhook } from '../services/webhook-service.ts';
import { webhookContracts } from '../contracts/webhooks.ts';

export const handler = endpoint(webhookContracts.delete, async ({ principal, path }) => {
  await removeWebhook(principal.apiKey, path.webhookId);
  return { WebhookId: path.webhookId, Deleted: true };
});
