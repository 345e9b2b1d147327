/**
 * GET /library's cost per page against the size of the user's library: one page (the default 50 items)
 * read in-process with 100 and with 10,000 items in the user's library. The entries are seeded straight
 * into the table (the records a claim writes), 100 to a transaction, not through HTTP. Budget: one DynamoDB request
 * per page and the same consumed capacity at both sizes.
 */
import type { Check, Figure } from './report.ts';
import type { World } from './world.ts';
import { progress } from './progress.ts';

const FEW_ITEMS = 100;
const MANY_ITEMS = 10_000;
const SEED_SLICE = 100;
const LIBRARY_USER = 'bench-library-user';

interface PageCost {
  requests: number;
  capacity: number;
  items: number;
}

/** Entries `from`..`to`-1 of the user's library, each a copy of an item record as a claim writes it. */
async function seedLibrary(from: number, to: number): Promise<void> {
  const { put, transact } = await import('../../../functions/store/transaction.ts');
  const { libraryEntryKey, libraryEntrySortKey } = await import('../../../functions/store/keys.ts');
  const { newGuid } = await import('../../../functions/shared/ids.ts');
  const start = Date.now() - MANY_ITEMS * 1000;
  for (let first = from; first < to; first += SEED_SLICE) {
    const items = Array.from({ length: Math.min(SEED_SLICE, to - first) }, (_, offset) => {
      const itemGuid = newGuid();
      const owner = newGuid();
      return {
        itemGuid,
        mimeType: 'image/jpeg',
        size: 4_000_000,
        md5: '0123456789ABCDEF0123456789ABCDEF',
        width: 4032,
        height: 3024,
        orientation: 1,
        dpiX: 72,
        dpiY: 72,
        apiKeyId: 'bench-key',
        ownerId: owner,
        objectKey: `library/${owner}/${itemGuid}`,
        fileName: `IMG_${first + offset}.jpg`,
        createdAt: start + (first + offset) * 1000,
        userId: LIBRARY_USER,
      };
    });
    await transact(
      items.map((item) => put(libraryEntryKey(LIBRARY_USER, libraryEntrySortKey(item)), 'LibraryEntry', item)),
    );
  }
}

async function pageCost(world: World, event: Awaited<ReturnType<World['capture']>>): Promise<PageCost> {
  world.probe.watch({ capacity: true });
  const result = await world.invoke('list-library', event);
  const { calls } = world.probe.take();
  if (result.statusCode !== 200) throw new Error(`GET /library answered ${result.statusCode}: ${result.body}`);
  return {
    requests: calls.length,
    capacity: calls.reduce((sum, call) => sum + call.capacityUnits, 0),
    items: (JSON.parse(result.body) as { LibraryItems: unknown[] }).LibraryItems.length,
  };
}

export async function libraryPageFigure(world: World): Promise<Figure> {
  const event = await world.capture('GET', '/library', { token: await world.service.token(LIBRARY_USER) });
  progress(`  GET /library: seeding ${FEW_ITEMS} library entries`);
  await seedLibrary(0, FEW_ITEMS);
  const few = await pageCost(world, event);
  progress(`  GET /library: seeding up to ${MANY_ITEMS} library entries`);
  await seedLibrary(FEW_ITEMS, MANY_ITEMS);
  const many = await pageCost(world, event);
  const label = 'GET /library (one page of 50)';
  const checks: Check[] = [
    {
      name: `${label}: DynamoDB requests with ${FEW_ITEMS} items`,
      measured: few.requests,
      limit: 1,
      kind: 'equal',
      shown: String(few.requests),
    },
    {
      name: `${label}: DynamoDB requests with ${MANY_ITEMS} items`,
      measured: many.requests,
      limit: 1,
      kind: 'equal',
      shown: String(many.requests),
    },
    {
      name: `${label}: capacity growth from ${FEW_ITEMS} to ${MANY_ITEMS} items`,
      measured: many.capacity - few.capacity,
      limit: 0,
      kind: 'max',
      shown: `${few.capacity} → ${many.capacity} units`,
    },
  ];
  return {
    title: "1b. GET /library: cost per page against the size of the user's library",
    howToRead:
      `One page of GET /library (the default 50 items, newest first) handled in-process, once with ${FEW_ITEMS} and once with ${MANY_ITEMS.toLocaleString('en')} items in the user's library, ` +
      "the entries seeded straight into the table as a claim writes them (a copy of each item record in the user's partition, 100 to a transaction). " +
      'The DynamoDB probe counts the calls and asks for their consumed capacity; presigning the download URLs is in process. ' +
      'Budgets: exactly 1 request (one Query of the page plus one item, which only tells whether a next page exists) and no capacity growth with the library size.',
    columns: ['Items in the library', 'Items answered', 'DynamoDB requests', 'Capacity units'],
    rows: [
      [FEW_ITEMS.toLocaleString('en'), String(few.items), String(few.requests), few.capacity.toFixed(1)],
      [MANY_ITEMS.toLocaleString('en'), String(many.items), String(many.requests), many.capacity.toFixed(1)],
    ],
    checks,
  };
}
