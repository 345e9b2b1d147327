/**
 * The baseline of figure 4: a bare node:http server that makes the same DynamoDB calls as the service
 * for reading a basket (one consistent GetItem) and adding a line (BatchGetItem of basket and project,
 * then a conditional PutItem on the basket's version, retried on a lost race), with no authorizer,
 * validation, middleware or logging. Run as its own process: `node bare-server.ts`, with
 * DYNAMODB_ENDPOINT and TABLE_NAME set; the caller's user id comes in the `x-user` header.
 * Prints `listening <port>` once ready.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';

const tableName = process.env.TABLE_NAME as string;
const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT }));

interface Line {
  id: number;
  projectGuid: string;
  quantity: number;
  unitPriceMinor: number;
  projectVersion: number;
}

const basketKey = (user: string, guid: string) => ({ PK: `USER#${encodeURIComponent(user)}`, SK: `BASKET#${guid}` });

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  response.end(text);
}

async function readJson(request: IncomingMessage): Promise<{ ProjectGuid: string; Quantity: number }> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

async function getBasket(user: string, guid: string, response: ServerResponse): Promise<void> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: basketKey(user, guid), ConsistentRead: true }),
  );
  send(response, Item ? 200 : 404, Item ?? {});
}

async function addLine(user: string, guid: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const { ProjectGuid, Quantity } = await readJson(request);
  const projectKey = { PK: `PROJECT#${ProjectGuid}`, SK: 'PROJECT' };
  for (let attempt = 0; attempt < 50; attempt++) {
    const result = await dynamo.send(
      new BatchGetCommand({
        RequestItems: { [tableName]: { Keys: [basketKey(user, guid), projectKey], ConsistentRead: true } },
      }),
    );
    const items = result.Responses?.[tableName] ?? [];
    const basket = items.find((item) => item.SK === `BASKET#${guid}`);
    const project = items.find((item) => item.PK === projectKey.PK);
    if (!basket || !project) return send(response, 404, {});
    const lines = basket.lines as Line[];
    let line = lines.find((candidate) => candidate.projectGuid === ProjectGuid);
    if (line) line.quantity += Quantity;
    else
      lines.push(
        (line = {
          id: basket.nextLineId++,
          projectGuid: ProjectGuid,
          quantity: Quantity,
          unitPriceMinor: project.unitPriceMinor,
          projectVersion: project.version,
        }),
      );
    const expected = basket.version;
    try {
      await dynamo.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...basket, version: expected + 1, lastSavedAt: Date.now() },
          ConditionExpression: '#version = :expected',
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: { ':expected': expected },
        }),
      );
      return send(response, 200, { Line: line, Basket: { ...basket, version: expected + 1 } });
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
  send(response, 503, {});
}

const server = createServer((request, response) => {
  const user = String(request.headers['x-user']);
  const [, resource, guid, line] = (request.url ?? '').split('/');
  const work =
    resource === 'basket' && guid && request.method === 'GET' && line === undefined
      ? getBasket(user, guid, response)
      : resource === 'basket' && guid && request.method === 'POST' && line === 'line'
        ? addLine(user, guid, request, response)
        : Promise.resolve(send(response, 404, {}));
  work.catch(() => send(response, 500, {}));
});
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`));
