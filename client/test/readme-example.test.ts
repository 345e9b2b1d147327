/**
 * The client examples of the documentation, run verbatim by Node (the package import pointed at its source)
 * against a fresh local service with the demo projects registered, a token, a library key and a photo:
 * `// example.ts` of client/README.md, and `// client-example.ts` of the repository's README (or of docs/,
 * wherever the section lives).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../test/support/service.ts';
import { jpeg } from '../../test/support/images.ts';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../', import.meta.url));
const source = join(repo, 'client/src/index.ts');
const scratch = mkdtempSync(join(tmpdir(), 'client-readme-'));
let service: TestService;
let env: Record<string, string | undefined>;

/** The ```ts block whose first line is `// <name>` in any of `files`. */
function example(name: string, files: string[]): string {
  const pattern = new RegExp(`^\`\`\`ts\\n(// ${name.replace('.', '\\.')}[\\s\\S]*?)^\`\`\`$`, 'm');
  const found = files
    .filter(existsSync)
    .map((file) => pattern.exec(readFileSync(file, 'utf8'))?.[1])
    .find((block) => block !== undefined);
  if (found === undefined) throw new Error(`no \`\`\`ts block starting "// ${name}" in ${files.join(', ')}`);
  return found;
}

async function runExample(name: string, files: string[]): Promise<string> {
  writeFileSync(join(scratch, name), example(name, files).replace("'@photo-commerce/client'", JSON.stringify(source)));
  return (await run(process.execPath, [name], { cwd: scratch, env })).stdout;
}

beforeAll(async () => {
  service = await startTestService();
  const catalogKey = await service.apiKey('readme-catalog', 'catalog');
  for (const projectGuid of ['0a1b2c3d4e5f40718293a4b5c6d7e8f9', '1b2c3d4e5f60718293a4b5c6d7e8f90a']) {
    const registered = await service.request('PUT', `/project/${projectGuid}`, {
      apiKey: catalogKey,
      json: { UnitPrice: 29.99, Version: 1 },
    });
    expect(registered.status).toBe(200);
  }
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(join(scratch, 'photo.jpg'), jpeg('readme'));
  env = {
    ...process.env,
    BASE: service.url,
    TOKEN: await service.token('readme-user'),
    LIBRARY_KEY: await service.apiKey('readme-library', 'library'),
  };
});
afterAll(async () => {
  await service?.close();
  rmSync(scratch, { recursive: true, force: true });
});

it('runs the example of client/README.md', async () => {
  const stdout = await runExample('example.ts', [join(repo, 'client/README.md')]);
  expect(stdout).toMatch(
    /^basket created \d{4}-\d\d-\d\dT.*Z; pay at http:\/\/127\.0\.0\.1:3001\/checkout\/[0-9a-f]{32}$/m,
  );
  expect(stdout).toContain('400 ValidationFailed: ');
  expect(stdout).toContain('(fields: Quantity)');
  expect(stdout).toMatch(/^builder for both images: http:\/\/127\.0\.0\.1:3001\/builder\/\S+$/m);
  expect(stdout).toMatch(/^builder for the first: http:\/\/127\.0\.0\.1:3001\/builder\/\S+$/m);
  expect(stdout).toMatch(/^1 × 1 px, on 10 × 15 cm: Poor$/m);
  expect(stdout.match(/^in the library: [0-9a-f]{32}, image\/jpeg$/gm)).toHaveLength(2);
});

it("runs the Client example of the repository's documentation", async () => {
  const docs = existsSync(join(repo, 'docs'))
    ? readdirSync(join(repo, 'docs')).map((file) => join(repo, 'docs', file))
    : [];
  const stdout = await runExample('client-example.ts', [join(repo, 'README.md'), ...docs]);
  expect(stdout).toMatch(/CheckoutUrl: 'http:\/\/127\.0\.0\.1:3001\/checkout\/[0-9a-f]{32}'/);
  expect(stdout).toMatch(/ProductBuilderUrl: 'http:\/\/127\.0\.0\.1:3001\/builder\/\S+'/);
  expect(stdout).toMatch(/created: \d{4}-\d\d-\d\dT/);
  // The same user as the other example's, which kept two photos already.
  expect(Number(/kept: (\d+)/.exec(stdout)?.[1])).toBeGreaterThanOrEqual(2);
});
