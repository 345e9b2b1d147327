/**
 * The package as a client app gets it: `npm pack` (which builds dist/ with the repo's tsc), the tarball
 * installed offline into a scratch project outside the repository, a strict TypeScript consumer compiled
 * against the shipped .d.ts (nodenext resolution, no skipLibCheck), and the ESM entry imported by Node.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const clientDir = fileURLToPath(new URL('..', import.meta.url));
const tsc = fileURLToPath(new URL('../../node_modules/.bin/tsc', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'client-package-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

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

describe('the packed client', () => {
  it('installs from its tarball and compiles a strict TypeScript consumer', async () => {
    const packed = await run('npm', ['pack', '--json', '--pack-destination', scratch], { cwd: clientDir });
    const { filename, files } = (
      JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{
        filename: string;
        files: Array<{ path: string }>;
      }>
    )[0]!;
    const shipped = files.map((file) => file.path);
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

    const project = join(scratch, 'consumer');
    await run('mkdir', ['-p', project]);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', join(scratch, filename)], {
      cwd: project,
    });
    writeFileSync(join(project, 'index.ts'), consumer);
    writeFileSync(
      join(project, 'tsconfig.json'),
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
        files: ['index.ts'],
      }),
    );
    await run(tsc, ['-p', join(project, 'tsconfig.json')], { cwd: project });

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
  }, 180_000);
});
