/**
 * The DownloadLink's pure parts: what a request's link says (anything malformed is no link), its signature
 * (any change to a part or the key fails it), the day whose key signs it, the checks that need no key, and
 * the API's base URL the links are built on (an execute-api stage, a custom domain's base path, npm start).
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  linkExpiry,
  linkOf,
  linkPathOf,
  linkSignature,
  signatureMatches,
  signingDayOf,
} from '../../functions/domain/artwork-link.ts';
import { checkLink } from '../../functions/services/artwork-links.ts';
import { apiBaseUrlOf } from '../../functions/http/api-base-url.ts';
import { DomainError } from '../../functions/shared/errors.ts';

const ORDER = '0123456789abcdef0123456789abcdef';
const ITEM = 'fedcba9876543210fedcba9876543210';
const KEY = Buffer.alloc(32, 7);
const DAY = 24 * 60 * 60;

describe('a DownloadLink', () => {
  const link = { orderGuid: ORDER, itemGuid: ITEM, line: 3, expires: 1_800_000_000 };

  it('is read from its parts, and anything malformed is no link', () => {
    expect(linkOf({ orderGuid: ORDER, itemGuid: ITEM, line: '3', expires: '1800000000' })).toEqual(link);
    for (const [line, expires] of [
      [undefined, '1800000000'],
      ['3', undefined],
      ['0', '1800000000'],
      ['03', '1800000000'],
      ['1000', '1800000000'],
      ['3', '-1'],
      ['3', '1e9'],
      ['3', '1234567890123'],
    ])
      expect(linkOf({ orderGuid: ORDER, itemGuid: ITEM, line, expires }), `${line} ${expires}`).toBeUndefined();
  });

  it('is signed over every part: a change to any, or another key, fails the signature', () => {
    const signature = linkSignature(KEY, link);
    expect(signature).toMatch(/^[\w-]{43}$/);
    expect(signatureMatches(KEY, link, signature)).toBe(true);
    for (const changed of [
      { ...link, orderGuid: ITEM },
      { ...link, itemGuid: ORDER },
      { ...link, line: 4 },
      { ...link, expires: link.expires + 1 },
    ])
      expect(signatureMatches(KEY, changed, signature)).toBe(false);
    expect(signatureMatches(Buffer.alloc(32, 8), link, signature)).toBe(false);
    expect(signatureMatches(KEY, link, signature.slice(1))).toBe(false);
    expect(linkPathOf(link, signature)).toBe(
      `/order/${ORDER}/artwork/${ITEM}?line=3&expires=1800000000&signature=${signature}`,
    );
  });

  it("expires whole days after its issue, signed by its expiry's UTC day", () => {
    const now = Date.UTC(2026, 10, 29, 23, 59, 59);
    expect(linkExpiry(now, 14)).toBe(Math.floor(now / 1000) + 14 * DAY);
    expect(signingDayOf(Date.UTC(2026, 10, 29) / 1000)).toBe(signingDayOf(Date.UTC(2026, 10, 29, 23, 59, 59) / 1000));
    expect(signingDayOf(Date.UTC(2026, 10, 30) / 1000)).toBe(signingDayOf(Date.UTC(2026, 10, 29) / 1000) + 1);
  });

  it('is refused without deriving a key when its expiry is further ahead than links live (403) or long past (410)', async () => {
    const now = Date.now();
    const codeOf = (expires: number) =>
      checkLink({ ...link, expires }, 'x'.repeat(43), now).then(
        () => 'accepted',
        (error: DomainError) => error.code,
      );
    expect(await codeOf(Math.floor(now / 1000) + 40 * DAY)).toBe('InvalidLink');
    expect(await codeOf(Math.floor(now / 1000) - 90 * DAY)).toBe('LinkExpired');
  });
});

describe("the API's base URL", () => {
  const eventOf = (path: string, requestPath: string, domainName: string): APIGatewayProxyEvent =>
    ({
      resource: '/order/{orderGuid}/artwork',
      path,
      pathParameters: { orderGuid: ORDER },
      requestContext: { path: requestPath, domainName },
    }) as unknown as APIGatewayProxyEvent;

  it('keeps the stage of an execute-api URL, a base path of a custom domain, and the scheme the gateway names', () => {
    const route = `/order/${ORDER}/artwork`;
    const https = { 'x-forwarded-proto': 'https' };
    expect(apiBaseUrlOf(eventOf(route, `/prod${route}`, 'abc.execute-api.eu-west-1.amazonaws.com'), https)).toBe(
      'https://abc.execute-api.eu-west-1.amazonaws.com/prod',
    );
    expect(apiBaseUrlOf(eventOf(`/v1${route}`, `/v1${route}`, 'api.example.com'), https)).toBe(
      'https://api.example.com/v1',
    );
    expect(apiBaseUrlOf(eventOf(route, route, 'api.example.com'), {})).toBe('https://api.example.com');
    expect(apiBaseUrlOf(eventOf(route, route, '127.0.0.1:3000'), { 'x-forwarded-proto': 'http' })).toBe(
      'http://127.0.0.1:3000',
    );
  });
});
