/**
 * The partner-form table (functions/webhooks/partner-forms.ts) keeps the rule it states: no user's id and no
 * key's id reaches any scope, PaymentReference only site keys, a field only for scopes that may subscribe to
 * its type, and a body carries exactly the fields its scope's form names, whatever else the event holds.
 */
import { describe, expect, it } from 'vitest';
import { API_KEY_SCOPES, type ApiKeyScope } from '../../functions/auth/principal.ts';
import { EVENT_SUBSCRIPTIONS, WEBHOOK_EVENT_TYPES } from '../../functions/webhooks/event-subscriptions.ts';
import { formRows, PARTNER_FORMS, partnerData, type PartnerForm } from '../../functions/webhooks/partner-forms.ts';

/** Every field of a form, nested ones as `Lines[].Id`, with the scopes that receive it. */
const rows = (form: PartnerForm): [string, readonly ApiKeyScope[]][] =>
  formRows(form).map(([path, field]) => [path, field.scopes]);

describe('the partner forms', () => {
  it('give no scope a user id, a key id or the internal event id', () => {
    for (const type of WEBHOOK_EVENT_TYPES)
      for (const [path] of rows(PARTNER_FORMS[type]))
        expect(path, `${type} ${path}`).not.toMatch(/(^|\.)(UserId|AnonymousUserId|ApiKeyId|EventId)$/);
  });

  it('give PaymentReference to site keys only', () => {
    const holders = WEBHOOK_EVENT_TYPES.flatMap((type) =>
      rows(PARTNER_FORMS[type])
        .filter(([path]) => path.endsWith('PaymentReference'))
        .map(([, scopes]) => [type, scopes]),
    );
    expect(holders).toEqual([
      ['OrderCreated', ['site']],
      ['OrderCancelled', ['site']],
    ]);
  });

  it('name, for every field, only scopes that may subscribe to its type, each of which receives something', () => {
    for (const type of WEBHOOK_EVENT_TYPES) {
      const subscribers: readonly ApiKeyScope[] = EVENT_SUBSCRIPTIONS[type].scopes;
      const fields = rows(PARTNER_FORMS[type]);
      for (const [path, scopes] of fields)
        expect(subscribers, `${type} ${path}`).toEqual(expect.arrayContaining([...scopes]));
      for (const scope of subscribers)
        expect(
          fields.some(([, scopes]) => scopes.includes(scope)),
          `${type} for ${scope}`,
        ).toBe(true);
    }
  });

  it("shape a body to exactly its scope's fields, nested lines included, dropping what the table does not name", () => {
    const detail = {
      EventId: 'OrderCreated-0123',
      OrderGuid: 'o'.repeat(32),
      UserId: 'alice',
      BasketGuid: 'b'.repeat(32),
      PaymentReference: 'psp-1',
      Status: 'OrderReceived',
      OrderTotal: 25,
      Lines: [
        {
          Id: 1,
          ProjectGuid: 'p'.repeat(32),
          Name: null,
          ProjectVersion: 1,
          Quantity: 2,
          Total: 25,
          ArtworkItemCount: 3,
          Secret: 'x',
        },
      ],
      ArtworkPath: `/order/${'o'.repeat(32)}/artwork`,
      AddedLater: 'internal',
    };
    const line = { Id: 1, ProjectGuid: 'p'.repeat(32), Name: null, ProjectVersion: 1, Quantity: 2, Total: 25 };
    expect(partnerData('OrderCreated', 'fulfilment', detail)).toEqual({
      OrderGuid: detail.OrderGuid,
      Status: 'OrderReceived',
      OrderTotal: 25,
      Lines: [{ ...line, ArtworkItemCount: 3 }],
      ArtworkPath: detail.ArtworkPath,
    });
    expect(partnerData('OrderCreated', 'site', detail)).toEqual({
      OrderGuid: detail.OrderGuid,
      BasketGuid: detail.BasketGuid,
      PaymentReference: 'psp-1',
      Status: 'OrderReceived',
      OrderTotal: 25,
      Lines: [line],
    });
    for (const scope of API_KEY_SCOPES.filter((scope) => scope !== 'site' && scope !== 'fulfilment'))
      expect(partnerData('OrderCreated', scope, detail)).toEqual({});
  });

  it('leave out a field the event does not hold (a Reason only when renditions failed)', () => {
    const ready = { EventId: 'e', ApiKeyId: 'k', ItemGuid: 'i'.repeat(32), Status: 'Ready' };
    expect(partnerData('LibraryItemRenditionsDecided', 'library', ready)).toEqual({
      ItemGuid: ready.ItemGuid,
      Status: 'Ready',
    });
  });
});
