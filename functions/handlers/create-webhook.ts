import { endpoint } from '../http/endpoint.ts';
import { registerWebhook } from '../services/webhook-service.ts';
import { toWebhookOut, webhookContracts } from '../contracts/webhooks.ts';

export const handler = endpoint(webhookContracts.create, async ({ principal, body }) => {
  const { webhook, secret } = await registerWebhook(principal.apiKey, { url: body.Url, eventTypes: body.EventTypes });
  return { ...toWebhookOut(webhook), Secret: secret };
});
