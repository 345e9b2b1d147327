/**
 * The package as a reader outside this repository gets it: client/README.md's steps run as written (the
 * client packed, a new empty project, `npm init -y`, the tarball installed), what the tarball ships, a
 * strict TypeScript consumer compiled against the shipped .d.ts (nodenext resolution, no skipLibCheck) in
 * that project, and the documentation's examples run there against a fresh local service with the demo
 * projects registered, a token, a library key and a photo: `// example.mts` of client/README.md with the
 * README's command, `// client-example.mts` of the repository's documentation with `node client-example.mts`,
 * by the test's Node (24).
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../test/support/service.ts';
import { jpeg } from '../../test/support/images.ts';
import { codeBlock, installAsTheReadmeSays, repo, runAsTheReadmeSays } from './readme-steps.ts';

const run = promisify(execFile);
const tsc = join(repo, 'node_modules/.bin/tsc');
const scratch = mkdtempSync(join(tmpdir(), 'client-readme-'));
let service: TestService;
let project: string;
let env: NodeJS.ProcessEnv;

const consumer = `
import { ApiError, PhotoCommerceClient, TimeoutError, type Basket, type Order, type Operations } from '@photo-commerce/client';

const client = new PhotoCommerceClient({ baseUrl: 'http://127.0.0.1:3000', token: async () => 'token', apiKey: 'key', timeoutMs: 5_000, maxRetries: 3 });

export async function demo(signal: AbortSignal): Promise<string> {
  const basket: Basket = await client.baskets.create({ signal });
  const created: Date = basket.CreatedDateUtc;
  const { Line } = await client.baskets.addLine(basket.Guid, { ProjectGuid: basket.Guid, Quantity: 2 });
  // @ts-expect-error Quantity is a number
  await client.baskets.addLine(basket.Guid, { ProjectGuid: basket.Guid, Quantity: '2' });
  await client.baskets.updateLine(basket.Guid, Line.Id, { ProjectGuid: basket.Guid, Quantity: 3 });
  const { CheckoutUrl } = await client.baskets.checkout(basket.Guid);
  const statuses: Array<Order['Status']> = [];
  for await (const order of client.orders.list()) statuses.push(order.Status);
  const pushed = await client.library.pushMany([new Blob([]), new Uint8Array(4), { data: new Uint8Array(4), filename: 'a.png' }]);
  const builder: Operations['getItemsBuilderUrl']['response'] = await client.library.builderUrlForItems(pushed.LibraryItems.map((item) => item.ItemGuid));
  try {
    await client.orders.get('0'.repeat(32));
  } catch (error) {
    if (error instanceof ApiError) return \`\${error.status} \${error.code} \${error.fields?.join(',') ?? ''}\`;
    if (error instanceof TimeoutError) return error.message;
  }
  return [CheckoutUrl, builder.ProductBuilderUrl, created.toISOString(), ...statuses].join(' ');
}
`;

/** The ```ts block whose first line is `// <name>` in any of `files`, saved as `name` in the project. */
function saveExample(name: string, files: string[]): void {
  const found = files
    .filter(existsSync)
    .map((file) => {
      try {
        return codeBlock(readFileSync(file, 'utf8'), 'ts', `// ${name}`);
      } catch {
        return undefined;
      }
    })
    .find((block) => block !== undefined);
  if (found === undefined) throw new Error(`no \`\`\`ts block starting "// ${name}" in ${files.join(', ')}`);
  writeFileSync(join(project, name), found);
}

beforeAll(async () => {
  [service, project] = await Promise.all([startTestService(), installAsTheReadmeSays(scratch)]);
  const catalogKey = await service.apiKey('readme-catalog', 'catalog');
  for (const projectGuid of ['0a1b2c3d4e5f40718293a4b5c6d7e8f9', '1b2c3d4e5f60718293a4b5c6d7e8f90a']) {
    const registered = await service.request('PUT', `/project/${projectGuid}`, {
      apiKey: catalogKey,
      json: { UnitPrice: 29.99, Version: 1 },
    });
    expect(registered.status).toBe(200);
  }
  writeFileSync(join(project, 'photo.jpg'), jpeg('readme'));
  env = {
    ...process.env,
    // The reader's `node` is 22.18 or later; the test's is Node 24.
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    BASE: service.url,
    TOKEN: await service.token('readme-user'),
    LIBRARY_KEY: await service.apiKey('readme-library', 'library'),
  };
}, 180_000);
afterAll(async () => {
  await service?.close();
  rmSync(scratch, { recursive: true, force: true });
});

it('installs the client into a new project as its README says: npm init -y, the tarball, no "type": "module"', () => {
  const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
    type?: string;
    dependencies: Record<string, string>;
  };
  expect(manifest.type ?? 'commonjs').toBe('commonjs');
  expect(manifest.dependencies['@photo-commerce/client']).toMatch(/^file:.*photo-commerce-client-.*\.tgz$/);
  expect(existsSync(join(project, 'node_modules/@photo-commerce/client/dist/index.js'))).toBe(true);
});

it('ships dist/ with its types and the README, and no TypeScript source', async () => {
  const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const tarball = (manifest.dependencies['@photo-commerce/client'] as string).replace(/^file:/, '');
  const { stdout } = await run('tar', ['-tzf', tarball], { cwd: project });
  const shipped = stdout
    .trim()
    .split('\n')
    .map((path) => path.replace(/^package\//, ''));
  expect(shipped).toEqual(
    expect.arrayContaining([
      'package.json',
      'README.md',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/generated/api.js',
      'dist/generated/api.d.ts',
    ]),
  );
  expect(shipped.filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts'))).toEqual([]);
});

it('compiles a strict TypeScript consumer against the installed package, and Node imports it', async () => {
  writeFileSync(join(project, 'consumer.mts'), consumer);
  writeFileSync(
    join(project, 'tsconfig.consumer.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        lib: ['es2022', 'dom', 'dom.asynciterable'],
        types: [],
        skipLibCheck: false,
      },
      files: ['consumer.mts'],
    }),
  );
  await run(tsc, ['-p', join(project, 'tsconfig.consumer.json')], { cwd: project });
  const imported = await run(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "const m = await import('@photo-commerce/client'); console.log(Object.keys(m).sort().join(','))",
    ],
    { cwd: project },
  );
  expect(imported.stdout.trim().split(',')).toEqual(
    expect.arrayContaining(['ApiError', 'ConnectionError', 'Paginated', 'PhotoCommerceClient', 'TimeoutError']),
  );
}, 120_000);

it('runs the example of client/README.md', async () => {
  saveExample('example.mts', [join(repo, 'client/README.md')]);
  const stdout = await runAsTheReadmeSays(project, env);
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

/** A Node 20 on the machine's PATH (not the repository's Node 24), as a reader on Node 20 has. */
function node20(): string | undefined {
  for (const folder of (process.env.PATH ?? '').split(':')) {
    const candidate = join(folder, 'node');
    if (folder.includes('node_modules') || !existsSync(candidate)) continue;
    try {
      if (execFileSync(candidate, ['--version'], { encoding: 'utf8' }).startsWith('v20.')) return folder;
    } catch {
      // not a runnable node
    }
  }
  return undefined;
}

it("runs the README's Node 20 route: the example compiled by the repository's TypeScript, run by Node 20", async (context) => {
  const folder = node20();
  // CI's machine has Debian's Node 20; a machine without one cannot show this route.
  if (folder === undefined) return context.skip();
  saveExample('example.mts', [join(repo, 'client/README.md')]);
  const stdout = await runAsTheReadmeSays(
    project,
    { ...env, PATH: `${folder}:${process.env.PATH ?? ''}` },
    '# Node 20',
  );
  expect(stdout).toMatch(/^basket created .*; pay at http:\/\/127\.0\.0\.1:3001\/checkout\/[0-9a-f]{32}$/m);
  expect(readFileSync(join(project, 'example.mjs'), 'utf8')).toContain("from '@photo-commerce/client'");
}, 120_000);

it("runs the Client example of the repository's documentation", async () => {
  const docs = existsSync(join(repo, 'docs'))
    ? readdirSync(join(repo, 'docs')).map((file) => join(repo, 'docs', file))
    : [];
  saveExample('client-example.mts', [join(repo, 'README.md'), ...docs]);
  const { stdout } = await run('node', ['client-example.mts'], { cwd: project, env });
  expect(stdout).toMatch(/CheckoutUrl: 'http:\/\/127\.0\.0\.1:3001\/checkout\/[0-9a-f]{32}'/);
  expect(stdout).toMatch(/ProductBuilderUrl: 'http:\/\/127\.0\.0\.1:3001\/builder\/\S+'/);
  expect(stdout).toMatch(/created: \d{4}-\d\d-\d\dT/);
  // The same user as the other example's, which kept two photos already.
  expect(Number(/kept: (\d+)/.exec(stdout)?.[1])).toBeGreaterThanOrEqual(2);
});
