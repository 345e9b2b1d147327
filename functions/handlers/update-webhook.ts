import { endpoint } from '../http/endpoint.ts';
import { updateWebhook } from '../services/webhook-service.ts';
import { toWebhookOut, webhookContracts } from '../contracts/webhooks.ts';

export const handler = endpoint(webhookContracts.update, async ({ principal, path, body }) =>
  toWebhookOut(
    await updateWebhook(principal.apiKey, path.webhookId, {
      url: body.Url,
      eventTypes: body.EventTypes,
      status: body.Status,
    }),
  ),
);
