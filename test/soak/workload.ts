/**
 * The soak workload and its audit, shared by `npm run soak` (test/soak/run.ts) and the short crash test in
 * the suite (test/integration/crash-recovery.test.ts).
 *
 * The service runs as a child process (`bin/local.ts` on a temporary DATA_DIR), so it can be killed with
 * SIGKILL and restarted on the same data. Many virtual clients, each its own user, drive a mixed workload:
 * baskets, lines, checkouts, completions (twice, to exercise idempotency) and image pushes. Each client
 * works sequentially on its own baskets, so it knows exactly what every acknowledged write left behind;
 * a request without an answer (a 5xx, a dropped connection at the kill) makes that one basket, checkout or
 * push "uncertain": the audit accepts its state before or after that request, and nothing else.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { ensureSigningKeys, signLocalToken } from '../../lib/local/signing-keys.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { multipartBody, tinyPng } from '../support/multipart.ts';
import { parseJsonOrUndefined } from '../support/json.ts';
import { snapshotStore } from '../support/store-snapshot.ts';
import type { ApiKeyScope } from '../../functions/auth/principal.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const REQUEST_TIMEOUT_MS = 30_000;

// ---------------------------------------------------------------------------------------------------
// The server process

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
}

/**
 * Starts `bin/local.ts` on a free port, as `npm start` does: in a process group of its own with its own
 * DynamoDB Local (not the test run's shared engine), so a kill of the group hits the server and its engine.
 * Node itself is spawned (process.execPath is the pinned `npx node`), not `npx`; with `npmStart`, npm runs
 * the `start` script, so that a signal reaches the server the way it does from a shell or a process manager.
 */
export async function startServer(
  dataDir: string,
  env: Record<string, string> = {},
  { npmStart = false } = {},
): Promise<ServerProcess> {
  const { DYNAMODB_LOCAL_POOL: _shared, ...parentEnv } = process.env;
  const [command, args] = npmStart ? ['npm', ['start']] : [process.execPath, ['bin/local.ts']];
  const child = spawn(command, args, {
    cwd: repoRoot,
    detached: true,
    env: {
      ...parentEnv,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      // No local checkout site: its fixed port would make parallel servers refuse each other.
      CHECKOUT_URL: 'https://checkout.example.test',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      POWERTOOLS_METRICS_DISABLED: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start within 60 s:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before listening:\n${output}`));
    });
  });
  // Keep draining the pipes so a chatty server never blocks on a full pipe.
  child.stdout?.resume();
  child.stderr?.resume();
  return { url, child, exited };
}

/** SIGKILL of the whole process group (server and engine): no shutdown handler runs, nothing is flushed by either. */
export async function killServer(server: ServerProcess): Promise<void> {
  process.kill(-(server.child.pid as number), 'SIGKILL');
  await server.exited;
}

export async function stopServer(server: ServerProcess): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 10_000);
  await server.exited;
  clearTimeout(timer);
}

/** `npm run -s api-key` against the running server's storage (the CLI finds it through DATA_DIR). */
export async function createApiKey(dataDir: string, name: string, scope: ApiKeyScope): Promise<string> {
  const child = spawn(process.execPath, ['bin/api-key.ts', '--name', name, '--scope', scope], {
    cwd: repoRoot,
    env: { ...process.env, DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`api-key failed (${code}): ${err}`);
  return out.trim();
}

// ---------------------------------------------------------------------------------------------------
// Statistics

export interface Stats {
  requests: number;
  /** Requests that got an HTTP answer (any status), as opposed to none at all. */
  answered: number;
  byType: Record<string, number>;
  /** Answers other than 200, by status ("network" for a request without an answer). */
  errorsByStatus: Record<string, number>;
  startedAt: number;
  endedAt: number;
}

const newStats = (): Stats => ({
  requests: 0,
  answered: 0,
  byType: {},
  errorsByStatus: {},
  startedAt: Date.now(),
  endedAt: Date.now(),
});

// ---------------------------------------------------------------------------------------------------
// HTTP

/** The current server address; replaced while the server is down, so clients wait instead of failing. */
export class Target {
  url = '';
  private waiting: Promise<void> = Promise.resolve();
  private release: () => void = () => {};

  down(): void {
    this.waiting = new Promise((resolve) => (this.release = resolve));
  }
  up(url: string): void {
    this.url = url;
    this.release();
  }
  ready(): Promise<void> {
    return this.waiting;
  }
}

interface Answer {
  status: number | 'network';
  body: any;
}

async function send(
  target: Target,
  stats: Stats,
  type: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer,
): Promise<Answer> {
  for (let throttled = 0; ; throttled++) {
    await target.ready();
    stats.requests++;
    stats.byType[type] = (stats.byType[type] ?? 0) + 1;
    let answer: Answer;
    try {
      const response = await fetch(`${target.url}${path}`, {
        method,
        headers,
        body,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      answer = { status: response.status, body: parseJsonOrUndefined(await response.text()) };
      stats.answered++;
    } catch {
      answer = { status: 'network', body: undefined };
    }
    if (answer.status !== 200)
      stats.errorsByStatus[String(answer.status)] = (stats.errorsByStatus[String(answer.status)] ?? 0) + 1;
    // A 429 was refused before anything ran: wait as told and send the same request again.
    if (answer.status === 429 && throttled < 20) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      continue;
    }
    return answer;
  }
}

// ---------------------------------------------------------------------------------------------------
// The model each client keeps of what it was told

interface ModelLine {
  id: number;
  quantity: number;
}

/** projectGuid -> line. */
type Lines = Map<string, ModelLine>;

type PendingChange =
  | { kind: 'add'; projectGuid: string; quantity: number }
  | { kind: 'update'; projectGuid: string; quantity: number }
  | { kind: 'delete-line'; projectGuid: string }
  | { kind: 'delete' }
  | { kind: 'complete'; checkoutId: string };

interface ModelBasket {
  guid: string;
  lines: Lines;
  state: 'open' | 'deleted' | 'ordered';
  /** The one request whose outcome is unknown; the basket is not used again after it. */
  pending?: PendingChange;
}

interface ModelCompletion {
  checkoutId: string;
  basketGuid: string;
  totalMinor: number;
  /** Known when the completion was acknowledged. */
  orderGuid?: string;
}

interface ClientModel {
  user: string;
  token: string;
  baskets: Map<string, ModelBasket>;
  completions: ModelCompletion[];
  /** Basket creations without an answer: each may or may not have made a basket. */
  uncertainCreates: number;
  items: string[];
  uncertainPushes: number;
}

export interface Fixture {
  dataDir: string;
  siteKey: string;
  catalogKey: string;
  libraryKey: string;
  projects: { guid: string; priceMinor: number }[];
  features: { orders: boolean; library: boolean };
}

const PRICES_MINOR = [199, 450, 1200, 2999, 1];

const toMinor = (amount: number) => Math.round(amount * 100);

/** Keys, projects and which parts of the API exist (orders and library are used when their routes answer). */
export async function prepare(target: Target, dataDir: string): Promise<Fixture> {
  const suffix = Math.random().toString(16).slice(2, 8);
  const siteKey = await createApiKey(dataDir, `soak-site-${suffix}`, 'site');
  const catalogKey = await createApiKey(dataDir, `soak-catalog-${suffix}`, 'catalog');
  const libraryKey = await createApiKey(dataDir, `soak-library-${suffix}`, 'library');
  const stats = newStats();
  const projects = [];
  for (const priceMinor of PRICES_MINOR) {
    const guid = crypto.randomUUID().replace(/-/g, '');
    const answer = await send(
      target,
      stats,
      'project',
      'PUT',
      `/project/${guid}`,
      { 'X-SERVICE-API-Key': catalogKey, 'Content-Type': 'application/json' },
      JSON.stringify({ UnitPrice: priceMinor / 100, Version: 1 }),
    );
    if (answer.status !== 200) throw new Error(`project registration failed: ${answer.status}`);
    projects.push({ guid, priceMinor });
  }
  const probe = async (method: string, path: string, key: string) =>
    (
      await send(
        target,
        stats,
        'probe',
        method,
        path,
        { 'X-SERVICE-API-Key': key, 'Content-Type': 'application/json' },
        '{}',
      )
    ).status;
  // A missing handler answers 500 from the local front; an existing one refuses the probe with a 4xx.
  const orders = (await probe('POST', `/checkout/${'0'.repeat(32)}/complete`, siteKey)) !== 500;
  const library = (await probe('POST', '/library/push', libraryKey)) !== 500;
  return { dataDir, siteKey, catalogKey, libraryKey, projects, features: { orders, library } };
}

export async function newClients(fixture: Fixture, count: number): Promise<ClientModel[]> {
  const keys = await ensureSigningKeys(fixture.dataDir);
  return Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const user = `soak-${index}-${Math.random().toString(16).slice(2, 8)}`;
      return {
        user,
        token: await signLocalToken(keys, { userId: user, ttlSeconds: 6 * 3600 }),
        baskets: new Map(),
        completions: [],
        uncertainCreates: 0,
        items: [],
        uncertainPushes: 0,
      };
    }),
  );
}

const pick = <T>(values: readonly T[]): T => values[Math.floor(Math.random() * values.length)] as T;

/** The lines of a basket answer, keyed by project. */
function linesOf(basket: { Lines: { Id: number; ProjectGuid: string; Quantity: number }[] }): Lines {
  return new Map(basket.Lines.map((line) => [line.ProjectGuid, { id: line.Id, quantity: line.Quantity }]));
}

/** One step of one client: picks an action that fits what the client has. */
async function step(client: ClientModel, fixture: Fixture, target: Target, stats: Stats): Promise<void> {
  const user = { Authorization: `Bearer ${client.token}` };
  const json = { ...user, 'Content-Type': 'application/json' };
  const site = { 'X-SERVICE-API-Key': fixture.siteKey, 'Content-Type': 'application/json' };
  const open = [...client.baskets.values()].filter((basket) => basket.state === 'open' && !basket.pending);
  const roll = Math.random();

  if (open.length === 0 || roll < 0.1) {
    const answer = await send(target, stats, 'create-basket', 'POST', '/basket', user);
    if (answer.status === 200)
      client.baskets.set(answer.body.Guid, { guid: answer.body.Guid, lines: new Map(), state: 'open' });
    else if (answer.status === 'network' || answer.status >= 500) client.uncertainCreates++;
    return;
  }
  if (fixture.features.library && roll < 0.18) {
    const { body, contentType } = multipartBody([
      { name: 'image', filename: 'soak.png', contentType: 'image/png', data: tinyPng() },
    ]);
    const answer = await send(
      target,
      stats,
      'push',
      'POST',
      '/library/push',
      { 'X-SERVICE-API-Key': fixture.libraryKey, 'Content-Type': contentType },
      body,
    );
    if (answer.status === 200) client.items.push(answer.body.LibraryItem.ItemGuid);
    else client.uncertainPushes++;
    return;
  }

  const basket = pick(open);
  const apply = async (
    type: string,
    method: string,
    path: string,
    change: PendingChange,
    body?: unknown,
  ): Promise<Answer> => {
    const answer = await send(
      target,
      stats,
      type,
      method,
      path,
      body === undefined ? user : json,
      body === undefined ? undefined : JSON.stringify(body),
    );
    if (answer.status === 'network' || answer.status >= 500) basket.pending = change;
    else if (answer.status !== 200)
      throw new Error(`${type} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer;
  };

  if (roll < 0.55 || basket.lines.size === 0) {
    const project = pick(fixture.projects);
    const quantity = 1 + Math.floor(Math.random() * 3);
    if ((basket.lines.get(project.guid)?.quantity ?? 0) + quantity > 999) return;
    const answer = await apply(
      'add-line',
      'POST',
      `/basket/${basket.guid}/line`,
      { kind: 'add', projectGuid: project.guid, quantity },
      { ProjectGuid: project.guid, Quantity: quantity },
    );
    if (answer.status === 200) basket.lines = linesOf(answer.body.Basket);
    return;
  }
  const [projectGuid, line] = pick([...basket.lines.entries()]);
  if (roll < 0.68) {
    const quantity = 1 + Math.floor(Math.random() * 5);
    const answer = await apply(
      'update-line',
      'PUT',
      `/basket/${basket.guid}/line/${line.id}`,
      { kind: 'update', projectGuid, quantity },
      { ProjectGuid: projectGuid, Quantity: quantity },
    );
    if (answer.status === 200) basket.lines = linesOf(answer.body.Basket);
    return;
  }
  if (roll < 0.76) {
    const answer = await apply('delete-line', 'DELETE', `/basket/${basket.guid}/line/${line.id}`, {
      kind: 'delete-line',
      projectGuid,
    });
    if (answer.status === 200) basket.lines = linesOf(answer.body.Basket);
    return;
  }
  if (roll < 0.8) {
    const answer = await apply('delete-basket', 'DELETE', `/basket/${basket.guid}`, { kind: 'delete' });
    if (answer.status === 200) basket.state = 'deleted';
    return;
  }
  if (!fixture.features.orders) return;

  // Checkout and completion, as the checkout site does it: read the snapshot, take payment, complete.
  const checkout = await send(target, stats, 'checkout', 'POST', `/basket/${basket.guid}/checkout`, user);
  if (checkout.status !== 200) {
    if (checkout.status !== 'network' && checkout.status < 500)
      throw new Error(`checkout answered ${checkout.status}: ${JSON.stringify(checkout.body)}`);
    return; // a checkout writes only its own snapshot; the basket is untouched either way
  }
  const checkoutId = String(checkout.body.CheckoutUrl).split('/').pop() as string;
  const snapshot = await send(target, stats, 'get-checkout', 'GET', `/checkout/${checkoutId}`, {
    'X-SERVICE-API-Key': fixture.siteKey,
  });
  if (snapshot.status !== 200) return;
  const completion: ModelCompletion = {
    checkoutId,
    basketGuid: basket.guid,
    totalMinor: toMinor(snapshot.body.Checkout.OrderTotal),
  };
  const body = JSON.stringify({ PaymentReference: `soak-${checkoutId.slice(0, 8)}` });
  const completed = await send(target, stats, 'complete', 'POST', `/checkout/${checkoutId}/complete`, site, body);
  if (completed.status === 'network' || (completed.status as number) >= 500) {
    basket.pending = { kind: 'complete', checkoutId };
    client.completions.push(completion);
    return;
  }
  if (completed.status !== 200)
    throw new Error(`complete answered ${completed.status}: ${JSON.stringify(completed.body)}`);
  completion.orderGuid = completed.body.Order.OrderGuid;
  client.completions.push(completion);
  basket.state = 'ordered';
  if (Math.random() < 0.3) {
    // The checkout site retrying a completion it already got an answer for: the same order, nothing new.
    const again = await send(target, stats, 'complete-repeat', 'POST', `/checkout/${checkoutId}/complete`, site, body);
    if (again.status === 200 && again.body.Order.OrderGuid !== completion.orderGuid) {
      throw new Error(
        `a repeated completion of ${checkoutId} answered order ${again.body.Order.OrderGuid}, not ${completion.orderGuid}`,
      );
    }
  }
}

/** A point in a run: a time after its start, or a number of answered requests (the same work on any machine). */
export type RunPoint = { ms: number } | { answered: number };

export interface RunOptions {
  clients: number;
  /** When the clients stop (counted answers: also not before the interrupt has run). */
  until: RunPoint;
  /** Run once while the workload runs (the crash); the clients' requests wait while it has the server down. */
  interrupt?: { at: RunPoint; run: () => Promise<void> };
}

/** Runs every client in a loop until the end point; a client stops at its first protocol surprise. */
export async function runWorkload(
  models: ClientModel[],
  fixture: Fixture,
  target: Target,
  options: RunOptions,
): Promise<{ stats: Stats; failures: string[] }> {
  const stats = newStats();
  const failures: string[] = [];
  const reached = (point: RunPoint) =>
    'ms' in point ? Date.now() - stats.startedAt >= point.ms : stats.answered >= point.answered;
  let interruptRun: Promise<void> | undefined;
  let interruptDone = !options.interrupt;
  let failInterrupt: (error: unknown) => void = () => {};
  // A failed interrupt ends the run at once: the clients would wait for the server it left down.
  const interruptFailure = new Promise<never>((_, reject) => (failInterrupt = reject));
  const interruptIfDue = () => {
    if (interruptRun || !options.interrupt || !reached(options.interrupt.at)) return;
    interruptRun = options.interrupt.run().then(() => {
      interruptDone = true;
    }, failInterrupt);
  };
  const timer =
    options.interrupt && 'ms' in options.interrupt.at ? setTimeout(interruptIfDue, options.interrupt.at.ms) : undefined;
  const finished = () => reached(options.until) && ('ms' in options.until || interruptDone);
  try {
    const clients = models.map(async (client) => {
      while (!finished()) {
        try {
          await step(client, fixture, target, stats);
        } catch (error) {
          failures.push(`${client.user}: ${(error as Error).message}`);
          return;
        }
        interruptIfDue();
      }
    });
    await Promise.race([Promise.all(clients), interruptFailure]);
    await interruptRun;
  } finally {
    clearTimeout(timer);
  }
  stats.endedAt = Date.now();
  return { stats, failures };
}

// ---------------------------------------------------------------------------------------------------
// The audit

export interface AuditResult {
  ok: boolean;
  problems: string[];
  figures: Record<string, number>;
}

const sameLines = (actual: Lines, expected: Lines, compareIds: boolean) =>
  actual.size === expected.size &&
  [...expected].every(
    ([project, line]) =>
      actual.get(project)?.quantity === line.quantity && (!compareIds || actual.get(project)?.id === line.id),
  );

/** The basket states a pending change may have left: before it, or after it. */
function possibleLines(basket: ModelBasket): Lines[] {
  const before = basket.lines;
  const change = basket.pending;
  if (!change || change.kind === 'delete' || change.kind === 'complete') return [before];
  const after = new Map(before);
  if (change.kind === 'add')
    after.set(change.projectGuid, {
      id: -1,
      quantity: (before.get(change.projectGuid)?.quantity ?? 0) + change.quantity,
    });
  if (change.kind === 'update') after.set(change.projectGuid, { id: -1, quantity: change.quantity });
  if (change.kind === 'delete-line') after.delete(change.projectGuid);
  return [before, after];
}

/**
 * Reads everything back through the API and checks it against what the clients were told: every
 * acknowledged write is there, totals are exact, every completed checkout made exactly one order.
 */
export async function audit(models: ClientModel[], fixture: Fixture, target: Target): Promise<AuditResult> {
  const stats = newStats();
  const problems: string[] = [];
  const figures = {
    baskets: 0,
    basketsUncertain: 0,
    lines: 0,
    orders: 0,
    completionsResolved: 0,
    items: 0,
    pushesUncertain: 0,
    intentsExpired: 0,
    s3Objects: 0,
    strayObjects: 0,
  };
  const price = new Map(fixture.projects.map((project) => [project.guid, project.priceMinor]));
  const site = { 'X-SERVICE-API-Key': fixture.siteKey, 'Content-Type': 'application/json' };

  for (const client of models) {
    const user = { Authorization: `Bearer ${client.token}` };
    const listed = await send(target, stats, 'audit', 'GET', '/baskets', user);
    if (listed.status !== 200) {
      problems.push(`${client.user}: GET /baskets answered ${listed.status}`);
      continue;
    }
    const actual = new Map<string, any>(listed.body.Baskets.map((basket: { Guid: string }) => [basket.Guid, basket]));

    for (const basket of actual.values()) {
      const totalMinor = basket.Lines.reduce((sum: number, line: { Total: number }) => sum + toMinor(line.Total), 0);
      if (toMinor(basket.OrderTotal) !== totalMinor)
        problems.push(
          `${client.user}: basket ${basket.Guid} OrderTotal ${basket.OrderTotal} is not the sum of its lines`,
        );
      for (const line of basket.Lines) {
        if (toMinor(line.Total) !== line.Quantity * (price.get(line.ProjectGuid) ?? Number.NaN))
          problems.push(
            `${client.user}: basket ${basket.Guid} line ${line.Id} Total ${line.Total} is not quantity x price`,
          );
      }
      figures.lines += basket.Lines.length;
    }

    for (const model of client.baskets.values()) {
      const found = actual.get(model.guid);
      actual.delete(model.guid);
      if (model.pending) figures.basketsUncertain++;
      const gone = model.state !== 'open' || model.pending?.kind === 'delete' || model.pending?.kind === 'complete';
      if (!found) {
        if (!gone && !model.pending) problems.push(`${client.user}: acknowledged basket ${model.guid} is missing`);
        else if (!gone && model.pending)
          problems.push(`${client.user}: basket ${model.guid} vanished after an unanswered line change`);
        continue;
      }
      figures.baskets++;
      if (model.state !== 'open') {
        problems.push(
          `${client.user}: basket ${model.guid} is still listed after an acknowledged ${model.state === 'deleted' ? 'delete' : 'completion'}`,
        );
        continue;
      }
      const lines = linesOf(found);
      if (!possibleLines(model).some((expected, index) => sameLines(lines, expected, index === 0))) {
        problems.push(
          `${client.user}: basket ${model.guid} holds ${JSON.stringify([...lines])}, acknowledged ${JSON.stringify([...model.lines])}${model.pending ? ` (pending ${model.pending.kind})` : ''}`,
        );
      }
    }
    // Baskets nobody was told about: only creations that went unanswered may have made them.
    if (actual.size > client.uncertainCreates)
      problems.push(
        `${client.user}: ${actual.size} unexpected baskets, ${client.uncertainCreates} unanswered creations`,
      );
    for (const extra of actual.values())
      if (extra.Lines.length > 0) problems.push(`${client.user}: unexpected basket ${extra.Guid} has lines`);

    if (fixture.features.orders) {
      // Unanswered completions are finished now, as the checkout site would retry them.
      for (const completion of client.completions.filter((c) => c.orderGuid === undefined)) {
        const retried = await send(
          target,
          stats,
          'audit',
          'POST',
          `/checkout/${completion.checkoutId}/complete`,
          site,
          JSON.stringify({ PaymentReference: `soak-${completion.checkoutId.slice(0, 8)}` }),
        );
        if (retried.status === 200) {
          completion.orderGuid = retried.body.Order.OrderGuid;
          figures.completionsResolved++;
        } else
          problems.push(
            `${client.user}: retrying the unanswered completion of ${completion.checkoutId} answered ${retried.status}`,
          );
      }
      const orders = await send(target, stats, 'audit', 'GET', '/orders', user);
      if (orders.status !== 200) {
        problems.push(`${client.user}: GET /orders answered ${orders.status}`);
        continue;
      }
      const counts = new Map<string, number>();
      for (const order of orders.body.Orders as { OrderGuid: string; OrderTotal: number }[])
        counts.set(order.OrderGuid, (counts.get(order.OrderGuid) ?? 0) + 1);
      const totals = new Map<string, number>(
        (orders.body.Orders as { OrderGuid: string; OrderTotal: number }[]).map((order) => [
          order.OrderGuid,
          toMinor(order.OrderTotal),
        ]),
      );
      const expected = new Set(
        client.completions
          .map((completion) => completion.orderGuid)
          .filter((guid): guid is string => guid !== undefined),
      );
      for (const completion of client.completions) {
        if (!completion.orderGuid) continue;
        if (counts.get(completion.orderGuid) !== 1)
          problems.push(
            `${client.user}: checkout ${completion.checkoutId} has ${counts.get(completion.orderGuid) ?? 0} orders listed`,
          );
        else if (totals.get(completion.orderGuid) !== completion.totalMinor)
          problems.push(`${client.user}: order ${completion.orderGuid} total differs from its checkout`);
      }
      if (orders.body.Orders.length !== expected.size)
        problems.push(`${client.user}: ${orders.body.Orders.length} orders for ${expected.size} completed checkouts`);
      figures.orders += orders.body.Orders.length;
    }

    for (const item of client.items) {
      const builder = await send(target, stats, 'audit', 'POST', `/library/${item}/builder`, {
        'X-SERVICE-API-Key': fixture.libraryKey,
      });
      if (builder.status !== 200)
        problems.push(`${client.user}: acknowledged library item ${item} answers ${builder.status}`);
      figures.items++;
    }
  }
  // A push that got no answer (the server was killed under it) may have left objects and records it never
  // committed; they are swept once its intent expires. With the TTL stand-in run two hours ahead (the CLI,
  // on the running server's storage), every object left must belong to a committed request: its owner and
  // its item record exist. Unanswered pushes that did commit keep theirs, so objects may outnumber items.
  figures.pushesUncertain = models.reduce((sum, client) => sum + client.uncertainPushes, 0);
  const expired = await promisify(execFile)(process.execPath, ['bin/expire-ttl.ts', '--hours', '2'], {
    cwd: repoRoot,
    env: { ...process.env, DATA_DIR: fixture.dataDir },
  }).catch((error: { stdout?: string; stderr?: string }) => {
    problems.push(`expire-ttl failed: ${error.stderr ?? String(error)}`);
    return { stdout: error.stdout ?? '' };
  });
  figures.intentsExpired = Number(/^swept\t(\d+)$/m.exec(expired.stdout)?.[1] ?? 0);
  const stored = await snapshotStore({
    storage: JSON.parse(readFileSync(join(fixture.dataDir, 'local-endpoints.json'), 'utf8')) as {
      s3Endpoint: string;
      dynamoEndpoint: string;
    },
  });
  for (const key of stored.objects.keys()) {
    // Renditions sit beside their original (functions/domain/renditions.ts): they belong to what it belongs to.
    const [, owner, item, rendition] =
      /^library\/([0-9a-f]{32})\/([0-9a-f]{32})(\.(?:thumbnail|preview)\.webp)?$/.exec(key) ?? [];
    if (!rendition) figures.s3Objects++;
    if (!owner || !stored.items.has(`ANONUSER#${owner}|ANONUSER`) || !stored.items.has(`LIBITEM#${item}|LIBITEM`)) {
      figures.strayObjects++;
      problems.push(`object ${key} belongs to no committed library request`);
    }
  }
  if (figures.s3Objects > figures.items + figures.pushesUncertain)
    problems.push(
      `${figures.s3Objects} S3 objects for ${figures.items} acknowledged pushes and ${figures.pushesUncertain} unanswered ones`,
    );
  return { ok: problems.length === 0, problems, figures };
}

export function formatReport(title: string, stats: Stats, result: AuditResult, failures: string[]): string {
  const seconds = Math.max(0.001, (stats.endedAt - stats.startedAt) / 1000);
  const lines = [
    `== ${title}`,
    `requests: ${stats.requests} (${stats.answered} answered) in ${seconds.toFixed(1)} s (${(stats.requests / seconds).toFixed(1)} req/s)`,
    `by type: ${Object.entries(stats.byType)
      .sort()
      .map(([type, count]) => `${type}=${count}`)
      .join(' ')}`,
    `non-200 answers by status: ${
      Object.entries(stats.errorsByStatus)
        .sort()
        .map(([status, count]) => `${status}=${count}`)
        .join(' ') || 'none'
    }`,
    `audit: ${Object.entries(result.figures)
      .map(([name, value]) => `${name}=${value}`)
      .join(' ')}`,
    `audit result: ${result.ok && failures.length === 0 ? 'PASS' : 'FAIL'}`,
    ...failures.map((failure) => `  client stopped: ${failure}`),
    ...result.problems.slice(0, 50).map((problem) => `  problem: ${problem}`),
  ];
  return lines.join('\n');
}
