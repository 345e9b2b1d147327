/**
 * `npm run bench`: runs every benchmark suite, each in its own process, and writes BENCHMARKS.md.
 * `npm run bench -- --check` also exits non-zero when a budget is missed.
 * `npm run bench -- --only <suite>[,<suite>]` runs some suites and prints their figures instead of
 * writing BENCHMARKS.md (for working on one benchmark).
 */
import { fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, freemem, totalmem, type, release, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { describeFailure, passes, renderFigure, type Figure } from './support/report.ts';
import { progress } from './support/progress.ts';

/** In the order they run; a suite's file under test/bench/ exports `run(): Promise<Figure[]>`. */
const SUITES = [
  'in-process',
  'cold-start',
  'http-throughput',
  'uploads',
  'resumable-uploads',
  'pull-memory-figure',
  'renditions',
  'webhooks',
  'webhook-latency',
  'event-publisher',
];

const { values } = parseArgs({ options: { check: { type: 'boolean', default: false }, only: { type: 'string' } } });
const selected = values.only ? values.only.split(',') : SUITES;
for (const name of selected)
  if (!SUITES.includes(name)) throw new Error(`unknown suite ${name}; suites: ${SUITES.join(', ')}`);

function runSuite(name: string): Promise<Figure[]> {
  return new Promise((resolve, reject) => {
    // --expose-gc: a suite may start a measurement from a collected heap (see in-process.ts).
    const child = fork(new URL('./suite.ts', import.meta.url), [name], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      execArgv: [...process.execArgv, '--expose-gc'],
    });
    let figures: Figure[] | undefined;
    child.on('message', (message: { figures: Figure[] }) => {
      figures = message.figures;
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      figures ? resolve(figures) : reject(new Error(`suite ${name} exited with ${code} before reporting`)),
    );
  });
}

const started = new Date();
const figures: Figure[] = [];
for (const name of selected) {
  progress(`bench: ${name}`);
  const suiteStart = performance.now();
  try {
    figures.push(...(await runSuite(name)));
  } catch (error) {
    figures.push({
      title: `Suite ${name} failed`,
      howToRead: `The suite did not finish: ${(error as Error).message}`,
      columns: [],
      rows: [],
      checks: [{ name: `suite ${name} finished`, measured: 0, limit: 1, kind: 'equal', shown: 'no' }],
    });
  }
  progress(`bench: ${name} took ${((performance.now() - suiteStart) / 1000).toFixed(0)} s`);
}

const checks = figures.flatMap((figure) => figure.checks);
const failed = checks.filter((check) => !passes(check));
const cpu = cpus();
const machine = `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM (${(freemem() / 2 ** 30).toFixed(1)} GiB free at the end), ${type()} ${release()}, load average ${loadavg()
  .map((load) => load.toFixed(2))
  .join(' / ')} at the end`;
const body = figures.map(renderFigure).join('\n');

if (values.only) {
  process.stdout.write(`${body}\n`);
} else {
  const document = [
    '# Benchmarks',
    '',
    'Written by `npm run bench` (do not edit by hand). `npm run bench -- --check` fails when a budget below is missed.',
    'Every budget is a ratio or a count measured side by side in the same run, so it holds on a noisy shared machine where absolute times do not;',
    'absolute figures are shown to give the ratios a scale. All traffic stays on loopback: the local stand-ins (DynamoDB Local for DynamoDB, s3rver for S3) replace AWS.',
    '',
    `- Date: ${started.toISOString()} (took ${((Date.now() - started.getTime()) / 60_000).toFixed(1)} min)`,
    `- Node: ${process.version}`,
    `- Machine: ${machine}`,
    `- Budgets met: ${checks.length - failed.length} of ${checks.length}`,
    '',
    body,
  ].join('\n');
  writeFileSync(new URL('../../BENCHMARKS.md', import.meta.url), document);
  progress(`bench: wrote BENCHMARKS.md (${checks.length - failed.length} of ${checks.length} budgets met)`);
}
for (const check of failed) progress(`bench: budget missed: ${describeFailure(check)}`);
if (values.check && failed.length > 0) process.exit(1);
