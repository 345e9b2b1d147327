/** Prices are decided on the JSON number's decimal text: more than two fraction digits is refused, never rounded. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newGuid } from '../../functions/shared/ids.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let catalogKey: string;

beforeAll(async () => {
  service = await startTestService();
  catalogKey = await service.apiKey('money-input', 'catalog');
});
afterAll(() => service?.close());

/** PUT /project with the body text as written (JSON.stringify would normalize the number). */
const putPrice = (projectGuid: string, priceText: string) =>
  service.request('PUT', `/project/${projectGuid}`, {
    apiKey: catalogKey,
    body: `{"UnitPrice": ${priceText}, "Version": 1}`,
    headers: { 'Content-Type': 'application/json' },
  });

describe('UnitPrice decimal text', () => {
  it.each([
    '9999.999',
    '1.005',
    '0.001',
    '1e-3',
    '1E-3',
    '12.3456e1',
    '0.1000000000000000000001',
    '19.990000000000001',
    '1000000.001',
  ])('refuses %s and stores nothing', async (text) => {
    const guid = newGuid();
    const answer = await putPrice(guid, text);
    expect(answer.status).toBe(400);
    expect(answer.body.Error.Code).toBe('ValidationFailed');
    expect(answer.body.Error.Fields).toContain('UnitPrice');
    expect((await service.request('GET', `/project/${guid}`, { apiKey: catalogKey })).status).toBe(404);
  });

  it.each([
    ['9999.99', 9999.99],
    ['9.99e2', 999],
    ['1.5E+1', 15],
    ['1234e-2', 12.34],
    ['10.50', 10.5],
    ['10.500', 10.5],
    ['0.1', 0.1],
    ['19.99', 19.99],
    ['0', 0],
    ['1000000', 1000000],
  ])('accepts %s as %s', async (text, price) => {
    const guid = newGuid();
    const answer = await putPrice(guid, text);
    expect(answer.status).toBe(200);
    expect(answer.body.UnitPrice).toBe(price);
  });
});
