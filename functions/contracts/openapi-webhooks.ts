/**
 * The OpenAPI document's `webhooks`: what this service POSTs to a partner's webhook, one entry per event type
 * and receiving key scope, its body's `data` the partner form of that scope (functions/webhooks/partner-forms.ts).
 */
import * as z from 'zod/mini';
import type { ApiKeyScope } from '../auth/principal.ts';
import { EVENT_SUBSCRIPTIONS, WEBHOOK_EVENT_TYPES } from '../webhooks/event-subscriptions.ts';
import { fieldsFor, PARTNER_FORMS, type PartnerForm } from '../webhooks/partner-forms.ts';
import { schemaOf } from './openapi-schemas.ts';

function dataSchema(form: PartnerForm, scope: ApiKeyScope): z.ZodMiniType {
  return z.object(
    Object.fromEntries(
      fieldsFor(form, scope).map(([name, field]) => {
        const value = 'items' in field ? z.array(dataSchema(field.items, scope)) : field.schema;
        const described = value.check(z.meta({ description: field.about }));
        return [name, field.optional ? z.optional(described) : described];
      }),
    ),
  );
}

const SIGNATURE_HEADERS = [
  ['webhook-id', "The delivery's id: the same on every attempt and redelivery, so receivers drop repeats"],
  ['webhook-timestamp', 'Seconds since 1970 when this attempt was signed'],
  ['webhook-signature', 'Space-separated `v1,<base64 HMAC-SHA256>`, one per secret (two during a rotation)'],
].map(([name, description]) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } }));

const capitalized = (text: string) => `${text[0]?.toUpperCase()}${text.slice(1)}`;

export function webhooksOf(): Record<string, unknown> {
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.flatMap((type) =>
      EVENT_SUBSCRIPTIONS[type].scopes.map((scope) => {
        const body = z.object({
          type: z.literal(type),
          timestamp: z
            .string()
            .check(
              z.meta({ description: 'When the event happened (ISO 8601, UTC)', example: '2026-11-28T20:00:00.000Z' }),
            ),
          data: dataSchema(PARTNER_FORMS[type], scope),
        });
        const operation = {
          operationId: `${type[0]?.toLowerCase()}${type.slice(1)}To${capitalized(scope)}`,
          summary: `${type} to a ${scope} key's webhook`,
          description: `${EVENT_SUBSCRIPTIONS[type].summary} Signed as Standard Webhooks says with the webhook's secret.`,
          tags: ['Webhooks'],
          security: [],
          parameters: SIGNATURE_HEADERS,
          requestBody: { required: true, content: { 'application/json': { schema: schemaOf(body, 'output') } } },
          responses: {
            '200': { description: 'Any 2xx within 10 s: delivered' },
            '410': { description: 'Gone: the webhook is disabled at once' },
            '4XX': { description: 'Any other answer, a redirect or none: retried on the schedule' },
          },
        };
        // The document's names are kebab-case: `order-created-to-site`.
        return [
          `${type.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`).slice(1)}-to-${scope}`,
          { post: operation },
        ];
      }),
    ),
  );
}
