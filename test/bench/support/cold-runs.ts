/**
 * Cold starts as figure 3 measures them: fresh Node processes that each load one bundle and answer one
 * request, in a sampled X-Ray trace with a UDP socket of the benchmark as Lambda's X-Ray daemon, which counts
 * the subsegments it takes.
 */
import { execFile } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sideBySide, type Cost, type Paired } from './stats.ts';

const ROUNDS = 11;
const execFileAsync = promisify(execFile);

/** Loads a bundle in this fresh process, answers one event, writes its costs (from just before the import to the answer). */
const LOADER = `
import { readFileSync, writeFileSync } from 'node:fs';
const [bundle, eventFile, out] = process.argv.slice(2);
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
const deadline = Date.now() + 29000;
const context = { functionName: 'cold', functionVersion: '$LATEST', invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:cold', memoryLimitInMB: '1024',
  awsRequestId: 'cold-start', logGroupName: '/aws/lambda/cold', logStreamName: 'local', callbackWaitsForEmptyEventLoop: false,
  getRemainingTimeInMillis: () => deadline - Date.now(), done() {}, fail() {}, succeed() {} };
const cpu = process.cpuUsage();
const start = performance.now();
const { handler } = await import(bundle);
const result = await handler(event, context);
const wall = performance.now() - start;
const used = process.cpuUsage(cpu);
writeFileSync(out, JSON.stringify({ wall, cpu: (used.user + used.system) / 1000, status: result.statusCode }));
// Lambda freezes a process only after it sent the answer back: let the last subsegment's datagram leave too.
setTimeout(() => process.exit(0), 20);
`;

/** The trace a cold start runs in, as Lambda sets it for a sampled invocation. */
const TRACE_HEADER = 'Root=1-6a1b2c3d-0123456789abcdef01234567;Parent=53995c3f42cd8ad8;Sampled=1';

export interface ColdRequest {
  label: string;
  /** Holds `event.json`, the request; the loader writes its result there. */
  dir: string;
  /** Puts back what a start changed (the table), so every start meets the same state. */
  restore: () => Promise<void>;
}

export interface ColdStarts {
  rounds: number;
  /** ROUNDS fresh starts of each bundle, alternating, and the subsegments the daemon took per `candidate` start. */
  measure(
    request: ColdRequest,
    candidate: string,
    baseline: string,
  ): Promise<{ samples: Paired<Cost>; subsegments: number }>;
  close(): void;
}

export async function startColdStarts(workDir: string): Promise<ColdStarts> {
  writeFileSync(join(workDir, 'loader.mjs'), LOADER);
  // Lambda's X-Ray daemon, as far as a function sees it: a UDP port that takes its subsegments.
  const daemon = createSocket('udp4');
  let datagrams = 0;
  daemon.on('message', () => void datagrams++);
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
  // A fresh function's environment, in a sampled trace with the daemon there: without the concurrency the
  // local stack declares for its in-process invocations (lib/local/source-invocations.ts), which Lambda
  // sets only with a runtime that runs each invocation in its store.
  const { AWS_LAMBDA_MAX_CONCURRENCY: _inProcessOnly, ...processEnv } = process.env;
  const freshEnv = {
    ...processEnv,
    AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${(daemon.address() as AddressInfo).port}`,
    _X_AMZN_TRACE_ID: TRACE_HEADER,
  };
  const coldRun = async (request: ColdRequest, file: string): Promise<Cost> => {
    const out = join(request.dir, 'result.json');
    await execFileAsync(process.execPath, [join(workDir, 'loader.mjs'), file, join(request.dir, 'event.json'), out], {
      env: freshEnv,
      maxBuffer: 64 * 1024 * 1024,
    }).catch((error: { stderr?: string }) => {
      const lastLines = (error.stderr ?? '')
        .split('\n')
        .filter((line) => line.length < 400)
        .slice(-12)
        .join('\n');
      throw new Error(`${request.label}: a fresh process running ${file} failed:\n${lastLines}`);
    });
    const result = JSON.parse(readFileSync(out, 'utf8')) as Cost & { status: number };
    // A DownloadLink answers 307 (its redirect is its success); anything 4xx or 5xx is a broken start.
    if (result.status >= 400) throw new Error(`${request.label}: cold ${file} answered ${result.status}`);
    await request.restore();
    return result;
  };
  return {
    rounds: ROUNDS,
    async measure(request, candidate, baseline) {
      const before = datagrams;
      const samples = await sideBySide(
        ROUNDS,
        () => coldRun(request, candidate),
        () => coldRun(request, baseline),
      );
      // UDP has no answer to wait for: the last start's datagrams are on loopback by now, or lost.
      await new Promise((resolve) => setTimeout(resolve, 100));
      return { samples, subsegments: (datagrams - before) / ROUNDS };
    },
    close: () => daemon.close(),
  };
}
