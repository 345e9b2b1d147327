/**
 * Figures 1, 1b and 2, on one in-process world: DynamoDB round trips and capacity per endpoint (with 10 and
 * with 10,000 other users' baskets in the table), then handler overhead against the same DynamoDB calls
 * sent bare, then GET /library's cost per page with 100 and 10,000 items in the user's library.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import type { Check, Figure } from './support/report.ts';
import { costOf, median, ms, pairedRatio, ratio, sideBySide, type Cost } from './support/stats.ts';
import { startWorld, type World } from './support/world.ts';
import { BUILDER_ITEMS, buildScenarios, seedOtherBaskets, type Scenario } from './support/scenarios.ts';
import { DynamoProbe, waves, replay, type DynamoCall } from './support/dynamo-probe.ts';
import { progress } from './support/progress.ts';
import { pinToCore } from './support/cores.ts';
import { MANY_ORDERS, orderPagesFigure } from './support/order-pages.ts';
import { libraryPageFigure } from './support/library-page.ts';

const FEW_OTHERS = 10;
const MANY_OTHERS = 10_000;
const OVERHEAD_ROUNDS = 150;
const WARM_UP_ROUNDS = 10;
const OVERHEAD_BUDGET = 1.3;
/** `follow-artwork-link`: a lab's download by DownloadLink is one BatchGetItem of the owner pointer and the item. */
const SINGLE_REQUEST = new Set([
  'get-basket',
  'list-baskets',
  'list-orders',
  'get-order',
  'list-library',
  'follow-artwork-link',
]);
const LINE_CHANGES = new Set(['add-basket-line', 'update-basket-line', 'delete-basket-line']);
/** A checkout was GetItem → PutItem before it repriced its lines; repricing may add one round trip. */
const CHECKOUT_ROUND_TRIPS = 2 + 1;
/**
 * A checkout whose projects name artwork marks its items held in the snapshot's transaction; past 100 actions
 * the marks take transactions of their own, side by side, and a last one makes the snapshot payable (issue 33).
 */
const ARTWORK_CHECKOUT_ROUND_TRIPS = 4;
/**
 * Sequential round trips of the flows that are transactions (issue 17): completion reads the checkout, then
 * commits; a status change finds the owner, reads the order, then commits; a creation reads the quota record,
 * then commits the basket with it; a claim decides on the link, holds the items (beside reading them), then
 * adds the entries; an erasure reads the item, then erases its records.
 */
const TRANSACTION_ROUND_TRIPS: Record<string, number> = {
  'complete-checkout': 4,
  'update-order-status': 3,
  'create-basket': 2,
  'claim-library-items': 3,
  'delete-library-item': 3,
  /** The lab's read of an order's artwork: the owner pointer, the artwork records, their items' erasures (issues 33, 40). */
  'get-order-artwork': 3,
};

function assertOk(scenario: Scenario, result: { statusCode: number; body: string }): void {
  // A DownloadLink answers 307 to the original.
  if (result.statusCode >= 300 && result.statusCode !== 307)
    throw new Error(`${scenario.label} answered ${result.statusCode}: ${result.body}`);
}

async function invokeOk(world: World, scenario: Scenario): Promise<void> {
  assertOk(scenario, await world.invoke(scenario.handler, scenario.event));
}

interface StorageFigures {
  requests: number;
  roundTrips: number;
  scans: number;
  capacity: number;
  operations: string;
}

/** One request from the scenario's starting state, with capacity, then the table is put back. */
async function storageFigures(world: World, scenario: Scenario): Promise<StorageFigures> {
  world.probe.watch({ capacity: true, journal: true });
  await invokeOk(world, scenario);
  const { calls, journal } = world.probe.take();
  await world.probe.restore(journal, calls);
  return {
    requests: calls.length,
    roundTrips: waves(calls).length,
    scans: calls.filter((call) => call.operation === 'Scan').length,
    capacity: calls.reduce((sum, call) => sum + call.capacityUnits, 0),
    operations: waves(calls)
      .map((wave) => wave.map((call) => call.operation).join(' + '))
      .join(' → '),
  };
}

function storageFigure(
  scenarios: Scenario[],
  few: Map<Scenario, StorageFigures>,
  many: Map<Scenario, StorageFigures>,
): Figure {
  const checks: Check[] = [];
  const rows: string[][] = [];
  for (const scenario of scenarios) {
    const small = few.get(scenario) as StorageFigures;
    const large = many.get(scenario) as StorageFigures;
    rows.push([
      scenario.label,
      small.operations || '—',
      String(large.requests),
      String(large.roundTrips),
      String(large.scans),
      small.capacity.toFixed(1),
      large.capacity.toFixed(1),
    ]);
    if (SINGLE_REQUEST.has(scenario.handler))
      checks.push({
        name: `${scenario.label}: DynamoDB requests`,
        measured: large.requests,
        limit: 1,
        kind: 'equal',
        shown: String(large.requests),
      });
    if (scenario.handler === 'get-builder')
      checks.push({
        name: `${scenario.label}: DynamoDB requests`,
        measured: large.requests,
        limit: 2,
        kind: 'max',
        shown: String(large.requests),
      });
    if (LINE_CHANGES.has(scenario.handler))
      checks.push({
        name: `${scenario.label}: sequential round trips`,
        measured: large.roundTrips,
        limit: 2,
        kind: 'max',
        shown: String(large.roundTrips),
      });
    const transactionBudget = TRANSACTION_ROUND_TRIPS[scenario.handler];
    if (transactionBudget !== undefined)
      checks.push({
        name: `${scenario.label}: sequential round trips`,
        measured: large.roundTrips,
        limit: transactionBudget,
        kind: 'max',
        shown: String(large.roundTrips),
      });
    if (scenario.handler === 'checkout-basket')
      checks.push({
        name: `${scenario.label}: sequential round trips`,
        measured: large.roundTrips,
        limit: scenario.label.includes('artwork') ? ARTWORK_CHECKOUT_ROUND_TRIPS : CHECKOUT_ROUND_TRIPS,
        kind: 'max',
        shown: String(large.roundTrips),
      });
    checks.push({
      name: `${scenario.label}: capacity growth from ${FEW_OTHERS} to ${MANY_OTHERS} other baskets`,
      measured: large.capacity - small.capacity,
      limit: 0,
      kind: 'max',
      shown: `${small.capacity} → ${large.capacity} units`,
    });
  }
  const scans = scenarios.reduce((sum, scenario) => sum + (many.get(scenario) as StorageFigures).scans, 0);
  checks.push({
    name: 'Scan calls over all endpoints',
    measured: scans,
    limit: 0,
    kind: 'equal',
    shown: String(scans),
  });
  return {
    title: '1. Storage round trips and capacity per endpoint',
    howToRead:
      "Each endpoint handles one request in-process while an SDK middleware on the handlers' DynamoDB client counts every call and asks for its consumed capacity. " +
      '"Calls" shows the operations in order; `+` joins calls sent side by side, `→` separates sequential round trips. ' +
      `Capacity units are summed over the request, measured once with ${FEW_OTHERS} and once with ${MANY_OTHERS.toLocaleString('en')} other users' baskets in the table: ` +
      'they must be equal, because a request may only read the keys of its own user. Budgets: reading a basket, listing baskets, listing orders (all or by project), reading an order and following an artwork DownloadLink (the owner pointer and the item in one BatchGetItem) take exactly 1 request; ' +
      "a line change takes at most 2 sequential round trips; a checkout at most 3 (2 before it repriced its lines at the current prices: the repricing BatchGetItem adds one, and the save of a repriced basket is in the snapshot's transaction); " +
      "a checkout whose projects name artwork at most 4 (3 while its hold marks fit the snapshot's transaction); " +
      'POST /basket at most 2 (the quota record, then one transaction of the basket and the record), POST /checkout/{id}/complete at most 4 and PUT /order/{guid}/status at most 3 (each commits in one TransactWriteItems); GET /order/{guid}/artwork at most 3 (the owner pointer, its artwork records, then the erasure intents of their items); ' +
      'a TransactWriteItems counts at its real price, 2 units per KB of each of its items (computed: DynamoDB Local reports a flat 2); ' +
      `resolving a builder token of ${BUILDER_ITEMS} items takes at most 2 requests (the link, then its items); claiming a builder link and erasing a library item at most 3 sequential round trips each; no endpoint ever issues a Scan.`,
    columns: [
      'Endpoint',
      'Calls',
      'Requests',
      'Round trips',
      'Scans',
      `Capacity, ${FEW_OTHERS} others`,
      `Capacity, ${MANY_OTHERS.toLocaleString('en')} others`,
    ],
    rows,
    checks,
  };
}

async function overheadFigure(world: World, scenarios: Scenario[], pinned: boolean): Promise<Figure> {
  const bare = new DynamoDBClient({
    endpoint: world.service.storage.dynamoEndpoint,
    region: process.env.AWS_REGION as string,
  });
  // The same recording middleware as on the handlers' client, so the instrument costs both sides alike.
  const bareProbe = new DynamoProbe(bare, world.service.storage.dynamoEndpoint, process.env.AWS_REGION as string);
  const bareS3 = new S3Client({
    endpoint: world.service.storage.s3Endpoint,
    forcePathStyle: true,
    region: process.env.AWS_REGION as string,
  });
  const rows: string[][] = [];
  const checks: Check[] = [];
  const medians = (samples: Cost[]) => ({
    wall: median(samples.map((s) => s.wall)),
    cpu: median(samples.map((s) => s.cpu)),
  });
  // Domain events are outbox records in the handlers' own transactions (replayed with them); publishing
  // them is the stream's publisher function's work, not a request's.
  for (const scenario of scenarios) {
    // A journalled run records the state the request starts from; every later run starts from it again.
    world.probe.watch({ journal: true });
    await invokeOk(world, scenario);
    const { calls: first, journal } = world.probe.take();
    let last: DynamoCall[] = first;
    await world.probe.restore(journal, last);
    const handlerRun = async (): Promise<Cost> => {
      const invocation = await world.prepare(scenario.handler, scenario.event);
      world.probe.watch();
      let result: Awaited<ReturnType<typeof invocation>> | undefined;
      const cost = await costOf(async () => {
        result = await invocation();
      });
      last = world.probe.take().calls;
      assertOk(scenario, result as NonNullable<typeof result>);
      await world.probe.restore(journal, last);
      return cost;
    };
    const bareRun = async (): Promise<Cost> => {
      const calls = last;
      bareProbe.watch();
      const cost = await costOf(async () => {
        await replay(bare, calls);
        await scenario.bareSdkWork?.(bareS3);
      });
      bareProbe.take();
      await world.probe.restore(journal, calls);
      return cost;
    };
    // Each endpoint starts from a collected heap: the garbage of seeding and of the endpoints measured
    // before it would otherwise be collected, on helper threads whose CPU time counts, during its runs.
    // The pause lets V8 finish sweeping that collection on its helper threads before the runs start.
    (globalThis as { gc?: () => void }).gc?.();
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (let i = 0; i < WARM_UP_ROUNDS; i++) await handlerRun();
    if (last.length === 0) {
      const alone: Cost[] = [];
      for (let i = 0; i < OVERHEAD_ROUNDS; i++) alone.push(await handlerRun());
      const handler = medians(alone);
      rows.push([scenario.label, '0', ms(handler.cpu), '—', '—', ms(handler.wall), '—', '—']);
      continue;
    }
    for (let i = 0; i < WARM_UP_ROUNDS; i++) await bareRun();
    const samples = await sideBySide(OVERHEAD_ROUNDS, handlerRun, bareRun);
    const handler = medians(samples.candidate);
    const baseline = medians(samples.baseline);
    const cpuRatio = pairedRatio({
      candidate: samples.candidate.map((s) => s.cpu),
      baseline: samples.baseline.map((s) => s.cpu),
    });
    const wallRatio = pairedRatio({
      candidate: samples.candidate.map((s) => s.wall),
      baseline: samples.baseline.map((s) => s.wall),
    });
    rows.push([
      scenario.label,
      String(last.length),
      ms(handler.cpu),
      ms(baseline.cpu),
      ratio(cpuRatio),
      ms(handler.wall),
      ms(baseline.wall),
      ratio(wallRatio),
    ]);
    checks.push({
      name: `${scenario.label}: handler / bare SDK calls (CPU time)`,
      measured: cpuRatio,
      limit: OVERHEAD_BUDGET,
      kind: 'max',
      shown: ratio(cpuRatio),
    });
    progress(`  overhead ${scenario.label}: ${ratio(cpuRatio)} (wall ${ratio(wallRatio)})`);
  }
  bare.destroy();
  bareS3.destroy();
  return {
    title: '2. Handler overhead',
    howToRead:
      'One request through the handler, invoked in-process with the API Gateway event the local front builds (authorizer context included), ' +
      'against the same DynamoDB calls (same wire-level inputs, same order, side-by-side calls kept side by side) sent on a plain DynamoDBClient to the same DynamoDB Local, ' +
      "plus the other AWS calls the handler makes, through the same local stand-ins (a domain event is an outbox record in the handler's own transaction, so it is among the replayed calls; publishing it is the stream publisher's work); " +
      'POST /library/upload signs a presigned POST, so its bare side signs the same POST on a plain S3Client; the library reads sign presigned GETs (one per item), so their bare side signs the same GETs there. ' +
      `The two run alternately, ${OVERHEAD_ROUNDS} times each after ${WARM_UP_ROUNDS} warm-up runs, every run starting from the same table state; times are medians, and each ratio is the median of the ${OVERHEAD_ROUNDS} per-round ratios (a round runs the two back to back, so a change in the machine's load between rounds cancels out of it). ` +
      "DynamoDB Local runs in a process of its own, so neither side's CPU time holds the engine's work, and the ratio is what the service adds on top of the calls it cannot avoid " +
      (pinned
        ? `(this process and the engine share CPU core ${ENGINE_CORE}, so the kernel's cost of waking an idle engine on another core, which lands in this process's CPU time, does not vary with how long each side let it idle) `
        : '(unpinned: taskset unavailable, so this process also pays for waking the engine on another core, more the longer it idled) ') +
      `(middy, Powertools, zod validation, marshalling, domain rules, JSON): budget ≤ ${OVERHEAD_BUDGET}. ` +
      'The budget is checked on CPU time (this process, all threads, from call to answer): on the shared 2-core machine the wall clock also counts time spent waiting for a core ' +
      'behind other processes, which grows with load, not with the code; the wall-clock medians are shown beside it and match the CPU time on an idle machine. ' +
      'Endpoints without storage calls show their own time only.',
    columns: [
      'Endpoint',
      'DynamoDB calls',
      'Handler CPU',
      'Bare CPU',
      'Ratio (budget)',
      'Handler wall',
      'Bare wall',
      'Wall ratio',
    ],
    rows,
    checks,
  };
}

/**
 * This process and DynamoDB Local (started by startWorld, so a child that inherits the core) share one core.
 * Each request to the engine is a write to a loopback socket, inside which the kernel delivers the request and
 * wakes the engine's thread, and that time is charged to this process's CPU time. In a profile of the POST
 * /basket rounds those writes were about half of this process's busy time. Waking an engine that idles on the
 * other core costs more the longer it idled, and the handler lets it idle longer between its calls (its own
 * work comes between them) than the bare side replaying them back to back: unpinned, the write endpoints'
 * ratios moved between 1.20 and 1.37 from one run to the next on an idle machine, against 1.16-1.27 pinned.
 * Both sides' calls are sequential, so sharing a core takes neither side any parallelism.
 */
const ENGINE_CORE = 1;

export async function run(): Promise<Figure[]> {
  const pinned = pinToCore(ENGINE_CORE);
  const world = await startWorld();
  try {
    progress('  seeding the fixed data set');
    const scenarios = await buildScenarios(world);
    let others = await seedOtherBaskets(FEW_OTHERS, 0);
    const few = new Map<Scenario, StorageFigures>();
    for (const scenario of scenarios) few.set(scenario, await storageFigures(world, scenario));
    progress(`  seeding ${MANY_OTHERS} other baskets`);
    others = await seedOtherBaskets(MANY_OTHERS, others);
    const many = new Map<Scenario, StorageFigures>();
    for (const scenario of scenarios) many.set(scenario, await storageFigures(world, scenario));
    const storage = storageFigure(scenarios, few, many);
    progress(`  seeding ${MANY_ORDERS} orders of one user`);
    const orderPages = await orderPagesFigure(world);
    const overhead = await overheadFigure(world, scenarios, pinned);
    const libraryPage = await libraryPageFigure(world);
    return [storage, orderPages, libraryPage, overhead];
  } finally {
    await world.close();
  }
}
