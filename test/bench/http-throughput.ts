/**
 * Figure 4: HTTP throughput of `npm start` (bin/local.ts, in its own process) against a bare node:http
 * server (support/bare-server.ts, in another) making the same DynamoDB calls on the same DynamoDB Local (the
 * one inside `npm start`). autocannon drives both from this process over loopback.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { ensureSigningKeys, signLocalToken } from '../../lib/local/signing-keys.ts';
import { LOCAL_AWS_ENV } from '../../lib/local/storage.ts';
import { VERIFIED_TOKEN_SECONDS } from '../../functions/auth/verified-tokens.ts';
import type { Check, Figure } from './support/report.ts';
import { median, ms, pairedRatio, ratio, sideBySide } from './support/stats.ts';
import { progress } from './support/progress.ts';
import { pinToCore } from './support/cores.ts';

const CONNECTIONS = 32;
const ROUND_SECONDS = 5;
const ROUNDS = 5;
/** One user (and basket) per in-flight request and then some: per-caller throttling never applies. */
const USERS = 64;
const BUDGET = 0.6;
const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Both servers run on one core and autocannon on another (Linux `taskset`, when there are two cores or
 * more). DynamoDB Local is a child of `npm start` and inherits its core: unpinned, the bare server would get
 * a core of its own while its storage runs on the service's, twice the CPU the service has.
 */
const SERVER_CORE = 1;
const LOAD_CORE = 0;
const pinning = pinToCore(LOAD_CORE);

/** Starts a Node process (on the server core) and resolves once its stdout prints a line matching `ready`. */
function startProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpMatchArray }> {
  return new Promise((resolve, reject) => {
    const [command, commandArgs] = pinning
      ? ['taskset', ['-c', String(SERVER_CORE), process.execPath, ...args]]
      : [process.execPath, args];
    const child = spawn(command as string, commandArgs as string[], {
      cwd: projectRoot,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const match = seen.match(ready);
      if (match) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve({ child, match });
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code} before it was ready`)));
  });
}

const stop = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

interface Load {
  rps: number;
  p99: number;
  failures: number;
}

interface Target {
  method: 'GET' | 'POST';
  path: (basket: Basket) => string;
  body?: string;
}

interface Basket {
  user: string;
  token: string;
  guid: string;
}

async function load(base: string, target: Target, baskets: Basket[], seconds: number): Promise<Load> {
  let next = 0;
  const result = await autocannon({
    url: base,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: target.method,
        setupRequest: (request) => {
          const basket = baskets[next++ % baskets.length] as Basket;
          return {
            ...request,
            path: target.path(basket),
            headers: {
              Accept: 'application/json',
              Authorization: `Bearer ${basket.token}`,
              'x-user': basket.user,
              ...(target.body ? { 'Content-Type': 'application/json' } : {}),
            },
            ...(target.body ? { body: target.body } : {}),
          };
        },
      },
    ],
  });
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

export async function run(): Promise<Figure[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-http-'));
  const children: ChildProcess[] = [];
  try {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...LOCAL_AWS_ENV,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
    };
    delete env.DYNAMODB_ENDPOINT;
    delete env.S3_ENDPOINT;
    const service = await startProcess(['bin/local.ts'], env, /listening on (http:\/\/\S+)/);
    children.push(service.child);
    const serviceUrl = service.match[1] as string;
    const { dynamoEndpoint } = JSON.parse(readFileSync(join(dataDir, 'local-endpoints.json'), 'utf8')) as {
      dynamoEndpoint: string;
    };
    const bare = await startProcess(
      ['test/bench/support/bare-server.ts'],
      { ...env, DYNAMODB_ENDPOINT: dynamoEndpoint, TABLE_NAME: 'photo-commerce' },
      /listening (\d+)/,
    );
    children.push(bare.child);
    const bareUrl = `http://127.0.0.1:${bare.match[1]}`;

    progress('  seeding users, baskets and a project through the service');
    const catalogKey = (
      await promisify(execFile)(process.execPath, ['bin/api-key.ts', '--name', 'bench-http', '--scope', 'catalog'], {
        cwd: projectRoot,
        env,
      })
    ).stdout.trim();
    const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
      const response = await fetch(`${serviceUrl}${path}`, {
        method,
        headers: { 'Content-Type': 'application/json', ...headers },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      if (response.status !== 200)
        throw new Error(`seeding ${method} ${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as Record<string, unknown>;
    };
    const projectGuid = crypto.randomUUID().replace(/-/g, '');
    await call('PUT', `/project/${projectGuid}`, { 'X-SERVICE-API-Key': catalogKey }, { UnitPrice: 29.99, Version: 1 });
    const keys = await ensureSigningKeys(dataDir);
    const baskets: Basket[] = [];
    for (let i = 0; i < USERS; i++) {
      const user = `bench-http-${i}`;
      const token = await signLocalToken(keys, { userId: user });
      const { Guid } = (await call('POST', '/basket', { Authorization: `Bearer ${token}` })) as { Guid: string };
      await call(
        'POST',
        `/basket/${Guid}/line`,
        { Authorization: `Bearer ${token}` },
        { ProjectGuid: projectGuid, Quantity: 1 },
      );
      baskets.push({ user, token, guid: Guid as string });
    }

    const targets: { label: string; target: Target }[] = [
      { label: 'GET /basket/{guid}', target: { method: 'GET', path: (basket) => `/basket/${basket.guid}` } },
      {
        label: 'POST /basket/{guid}/line',
        target: {
          method: 'POST',
          path: (basket) => `/basket/${basket.guid}/line`,
          body: JSON.stringify({ ProjectGuid: projectGuid, Quantity: 1 }),
        },
      },
    ];
    const rows: string[][] = [];
    const checks: Check[] = [];
    for (const { label, target } of targets) {
      await load(serviceUrl, target, baskets, 1);
      await load(bareUrl, target, baskets, 1);
      const samples = await sideBySide(
        ROUNDS,
        () => load(serviceUrl, target, baskets, ROUND_SECONDS),
        () => load(bareUrl, target, baskets, ROUND_SECONDS),
      );
      const serviceRps = median(samples.candidate.map((s) => s.rps));
      const bareRps = median(samples.baseline.map((s) => s.rps));
      const serviceP99 = median(samples.candidate.map((s) => s.p99));
      const bareP99 = median(samples.baseline.map((s) => s.p99));
      // Medians of the per-round ratios, as figures 2, 3 and 5a: each round's two loads ran back to back.
      const rpsRatio = pairedRatio({
        candidate: samples.candidate.map((s) => s.rps),
        baseline: samples.baseline.map((s) => s.rps),
      });
      const p99Ratio = pairedRatio({
        candidate: samples.baseline.map((s) => s.p99),
        baseline: samples.candidate.map((s) => s.p99),
      });
      const failures = [...samples.candidate, ...samples.baseline].reduce((sum, s) => sum + s.failures, 0);
      rows.push([
        label,
        serviceRps.toFixed(0),
        bareRps.toFixed(0),
        ratio(rpsRatio),
        ms(serviceP99, 0),
        ms(bareP99, 0),
        ratio(p99Ratio),
        String(failures),
      ]);
      checks.push({
        name: `${label}: requests per second, service / bare`,
        measured: rpsRatio,
        limit: BUDGET,
        kind: 'min',
        shown: ratio(rpsRatio),
      });
      checks.push({
        name: `${label}: p99 latency, bare / service`,
        measured: p99Ratio,
        limit: BUDGET,
        kind: 'min',
        shown: ratio(p99Ratio),
      });
      checks.push({
        name: `${label}: failed requests (non-2xx, errors, timeouts)`,
        measured: failures,
        limit: 0,
        kind: 'equal',
        shown: String(failures),
      });
      progress(`  http ${label}: rps ${ratio(rpsRatio)}, p99 ${ratio(p99Ratio)}`);
    }
    return [
      {
        title: '4. HTTP throughput of the local service',
        howToRead:
          `autocannon sends ${CONNECTIONS} concurrent connections at \`npm start\` (bin/local.ts: the local API Gateway front with the real authorizer and handlers, s3rver, and DynamoDB Local in a child process) ` +
          'and, alternately, at a bare node:http server in its own process that makes the same DynamoDB calls on the same DynamoDB Local with nothing else (no authorizer, validation, middleware or logging). ' +
          (pinning
            ? `Both servers run on CPU core ${SERVER_CORE} and autocannon on core ${LOAD_CORE} (taskset); DynamoDB Local, a child of \`npm start\`, runs on core ${SERVER_CORE} too and serves both: unpinned, the bare server would have a core of its own plus the service's, twice the CPU the service gets on an idle machine. `
            : 'The processes are not pinned to cores (taskset unavailable): on an idle machine the bare server gets more CPU than the service, which shares its core with the storage. ') +
          `Each side gets ${ROUNDS} rounds of ${ROUND_SECONDS} s after a 1 s warm-up; the req/s and p99 columns are the medians over rounds of each side's average requests per second and p99 latency, and each ratio is the median of the per-round ratios (a round runs the two loads back to back, so a change in the machine's load between rounds cancels out of it). ` +
          `Requests rotate over ${USERS} users with one basket each; the authorizer runs on every request (the local front keeps no authorizer cache), and a token whose signature it verified in the last ${VERIFIED_TOKEN_SECONDS / 60} minutes is not verified again (functions/auth/verified-tokens.ts); adding a line adds 1 to the basket's line. ` +
          `Budgets: the service reaches at least ${BUDGET} of the bare server's requests per second, and its p99 is at most 1/${BUDGET} of the bare server's (bare p99 / service p99 ≥ ${BUDGET}); no request fails.`,
        columns: [
          'Request',
          'Service req/s',
          'Bare req/s',
          'Ratio',
          'Service p99',
          'Bare p99',
          'p99 ratio (bare / service)',
          'Failed',
        ],
        rows,
        checks,
      },
    ];
  } finally {
    for (const child of children.reverse()) await stop(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
