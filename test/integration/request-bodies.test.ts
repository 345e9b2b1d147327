/**
 * How a JSON body is read: a refusal names every failing field (in `Message` and `Fields`) and says so when a
 * field was sent under another case (`projectGuid` for `ProjectGuid`); the body is JSON whatever its
 * Content-Type says, as docs/api.md states.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let token: string;
let basket: string;
let project: string;

beforeAll(async () => {
  service = await startTestService();
  token = await service.token('bodies');
  project = await service.project(12.5);
  basket = (await service.request('POST', '/basket', { token })).body.Guid;
});
afterAll(() => service?.close());

const addLine = (json: unknown) => service.request('POST', `/basket/${basket}/line`, { token, json });

describe('validation messages', () => {
  it('name every field sent in camelCase, and the name to send instead', async () => {
    const answer = await addLine({ projectGuid: project, quantity: 2 });
    expect(answer.status).toBe(400);
    expect(answer.body.Error.Code).toBe('ValidationFailed');
    expect(answer.body.Error.Fields).toEqual(['ProjectGuid', 'Quantity']);
    expect(answer.body.Error.Message).toContain('ProjectGuid: missing; send `ProjectGuid`, not `projectGuid`');
    expect(answer.body.Error.Message).toContain('Quantity: missing; send `Quantity`, not `quantity`');
  });

  it('name a lowercase twin too', async () => {
    const answer = await addLine({ projectguid: project, Quantity: 2 });
    expect(answer.status).toBe(400);
    expect(answer.body.Error.Fields).toEqual(['ProjectGuid']);
    expect(answer.body.Error.Message).toContain('send `ProjectGuid`, not `projectguid`');
  });

  it('name every failing field when several are wrong', async () => {
    const answer = await addLine({ ProjectGuid: 'not-a-guid', Quantity: 0 });
    expect(answer.status).toBe(400);
    expect(answer.body.Error.Fields).toEqual(['ProjectGuid', 'Quantity']);
    expect(answer.body.Error.Message).toMatch(/^ProjectGuid: must be a guid .*; Quantity: must be from 1 to 999$/);
  });

  it('say a field is missing when nothing like it was sent', async () => {
    const answer = await addLine({ Quantity: 2 });
    expect(answer.body.Error).toMatchObject({
      Code: 'ValidationFailed',
      Message: 'ProjectGuid: missing (Invalid input: expected string, received undefined)',
      Fields: ['ProjectGuid'],
    });
  });

  it('keep the one-field message as it was', async () => {
    const answer = await addLine({ ProjectGuid: project, Quantity: 1000 });
    expect(answer.body.Error).toEqual({
      Code: 'ValidationFailed',
      Message: 'Quantity: must be from 1 to 999',
      Fields: ['Quantity'],
    });
  });
});

describe('the Content-Type of a JSON body', () => {
  it.each(['text/plain', 'application/x-www-form-urlencoded', undefined])(
    'is not checked: a JSON body sent as %s is read as JSON, as docs/api.md says',
    async (contentType) => {
      const answer = await service.request('POST', `/basket/${basket}/line`, {
        token,
        body: JSON.stringify({ ProjectGuid: project, Quantity: 1 }),
        headers: contentType === undefined ? {} : { 'Content-Type': contentType },
      });
      expect(answer.status).toBe(200);
      expect(answer.body.Line.ProjectGuid).toBe(project);
    },
  );

  it('is documented as not checked', () => {
    expect(readFileSync('docs/api.md', 'utf8')).toMatch(/whatever its `Content-Type` says/);
  });
});
