/**
 * `GET /`, `GET /favicon.ico` and `GET /docs` of `npm start`: where the API reference is, its icon, and a
 * browsable API reference (swagger-ui, from the swagger-ui-dist package) over the service's own `/openapi.json`.
 * Everything the page loads comes from this server: no CDN, no validator badge (`validatorUrl: null`), so it
 * works offline.
 *
 * Local only, never deployed: in AWS every path is a route of the table with one Lambda function each, and
 * a 1.7 MB static renderer is not an API endpoint; client developers get the same page from `npm start`, or
 * can point any OpenAPI viewer at the deployed `/openapi.json`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyResult } from 'aws-lambda';

const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Files of swagger-ui-dist the page uses, by the name it is served under (`/docs/<name>`). */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Photo commerce API reference</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
  <main id="swagger-ui"></main>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/start.js"></script>
</body>
</html>
`;

/**
 * Starts swagger-ui on the document; `validatorUrl: null` keeps it from calling validator.swagger.io. The
 * document's one server is `.` (right for every stage and domain), which the server list would show as a bare
 * dot: the page names the origin it was read from instead.
 */
const START = `const thisServer = (response) => {
  if (!response.url.endsWith('/openapi.json') || !response.ok) return response;
  const document = JSON.parse(response.text);
  document.servers = [{ url: location.origin, description: 'this npm start' }];
  response.text = JSON.stringify(document);
  response.body = document;
  return response;
};
window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  responseInterceptor: thisServer,
  dom_id: '#swagger-ui',
  validatorUrl: null,
  deepLinking: true,
  displayOperationId: true,
  showExtensions: false,
  tryItOutEnabled: false,
});
`;

/** Where the routes are listed: the local front's refusals of an unknown route end with it. */
export const ROUTE_LIST = 'GET /openapi.json lists every route; GET /docs browses them.';

/**
 * `GET /`: what a newcomer's first request finds. Local only, like the page: in AWS an unknown path, the root
 * included, is API Gateway's RouteNotFound, whose message names /openapi.json (functions/http/gateway-answers.ts).
 */
const INDEX = JSON.stringify({
  Message: `The photo commerce API (npm start). ${ROUTE_LIST}`,
  Docs: '/docs',
  OpenApi: '/openapi.json',
  Health: '/health',
});

const text = (contentType: string, body: string): APIGatewayProxyResult => ({
  statusCode: 200,
  headers: { 'Content-Type': contentType, 'Cache-Control': 'no-cache' },
  body,
});

const cache = new Map<string, APIGatewayProxyResult>();

function asset(name: string): APIGatewayProxyResult | undefined {
  const contentType = ASSETS[name];
  if (!contentType) return undefined;
  let result = cache.get(name);
  if (!result) {
    const bytes = readFileSync(join(dist, name));
    result = {
      statusCode: 200,
      headers: { 'Content-Type': contentType, 'Cache-Control': 'max-age=3600' },
      body: bytes.toString('base64'),
      isBase64Encoded: true,
    };
    cache.set(name, result);
  }
  return result;
}

/** The answer to a GET of the index, the reference page or one of its files; undefined for every other request. */
export function apiDocs(request: IncomingMessage): APIGatewayProxyResult | undefined {
  if (request.method !== 'GET') return undefined;
  const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
  if (path === '/') return text('application/json', INDEX);
  // A browser that opens `GET /` (or any JSON answer) asks for the icon too; the reference page's serves.
  if (path === '/favicon.ico') return asset('favicon-32x32.png');
  if (path === '/docs' || path === '/docs/') return text('text/html; charset=utf-8', PAGE);
  if (path === '/docs/start.js') return text('text/javascript; charset=utf-8', START);
  return path.startsWith('/docs/') ? asset(path.slice('/docs/'.length)) : undefined;
}
