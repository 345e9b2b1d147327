/**
 * Every error code the service can answer is documented, in docs/api.md and in the OpenAPI document. The
 * codes are read from the source (every DomainError thrown under functions/, API Gateway's own answers, the
 * local front's), so a new code that no contract declares and no document names fails here; each route's
 * codes (the contract's and those of its kind) are in its operation and in docs/api.md.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { routes } from '../../functions/routes.ts';
import { contracts } from '../../functions/contracts/registry.ts';
import { buildOpenApi } from '../../functions/contracts/openapi.ts';
import { errorCodesOf } from '../../functions/contracts/openapi-errors.ts';

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(dir, name));

/** Where a code is written in the source: the error helpers' code argument, DomainError's, the answers' `code`. */
const CODE_PATTERNS = [
  /\b(?:badRequest|notFound|conflict|unprocessable)\(\s*'([A-Z]\w+)'/g,
  /\bnew DomainError\(\s*'\w+',\s*'([A-Z]\w+)'/g,
  /\bserviceUnavailable\(\s*'(?:[^'\\]|\\.)*',\s*'([A-Z]\w+)'/g,
  /\berrorAnswer\(\s*\d+,\s*'([A-Z]\w+)'/g,
  // A default (`code = 'ServiceUnavailable'`) or a code chosen at run time (`const code = ... : 'ItemsRejected'`).
  /\bcode = [^;\n]*?'([A-Z][a-z]\w+)'/g,
];

function codesIn(files: string[], patterns: RegExp[]): Set<string> {
  const codes = new Set<string>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const pattern of patterns) for (const match of text.matchAll(pattern)) codes.add(match[1] as string);
  }
  return codes;
}

const answered = new Set([
  ...codesIn(sourceFiles('functions'), CODE_PATTERNS),
  // API Gateway's answers (one table) and the local front's own refusals.
  ...codesIn(['functions/http/gateway-answers.ts'], [/\bcode: '([A-Z]\w+)'/g]),
  ...codesIn(['lib/local/api-gateway.ts'], CODE_PATTERNS),
]);

const apiMd = readFileSync('docs/api.md', 'utf8');
const document = buildOpenApi() as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
const documentText = JSON.stringify(document);

describe('error codes', () => {
  it('are found in the source (the scan sees the codes it must)', () => {
    for (const code of ['ValidationFailed', 'LineNotFound', 'MethodNotAllowed', 'ConcurrentModification'])
      expect(answered, code).toContain(code);
    expect(answered, 'ItemsRejected: a code chosen at run time').toContain('ItemsRejected');
    expect(answered.size).toBeGreaterThan(35);
  });

  it.each([...answered].sort())('%s is in docs/api.md and in the OpenAPI document', (code) => {
    expect(apiMd, 'docs/api.md').toContain(`\`${code}\``);
    expect(documentText, 'OpenAPI document').toMatch(new RegExp(`\\b${code}\\b`));
  });

  it.each(routes.map((route) => [`${route.method} ${route.path}`, route] as const))(
    "%s: its contract's codes are in its operation and in docs/api.md",
    (_, route) => {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()];
      const responses = JSON.stringify(operation?.responses);
      const components = JSON.stringify((document as unknown as { components: unknown }).components);
      for (const [status, codes = []] of Object.entries(errorCodesOf(route, contracts[route.handler] ?? {}))) {
        expect(operation?.responses, `${status}`).toHaveProperty(status);
        for (const code of codes) {
          expect(`${responses}${components}`, `${status} ${code}`).toContain(code);
          expect(apiMd, `${status} ${code} in docs/api.md`).toContain(`\`${code}\``);
        }
      }
    },
  );
});
