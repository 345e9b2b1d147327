/**
 * Figure 3: cold start. Each handler is bundled with the CDK stack's own esbuild options, and so is a
 * baseline that only creates the same AWS SDK clients and makes the same DynamoDB and S3 calls. Fresh Node
 * processes load one bundle and answer one request in a sampled X-Ray trace (support/cold-runs.ts); their
 * sizes and times are compared. Figure 3b: what tracing the calls costs.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../../functions/shared/metric-names.ts';
import type { Check, Figure } from './support/report.ts';
import { kib, median, ms, pairedRatio, ratio } from './support/stats.ts';
import { startColdStarts } from './support/cold-runs.ts';
import { startWorld } from './support/world.ts';
import { buildScenarios, type Scenario } from './support/scenarios.ts';
import type { DynamoCall, Journal } from './support/dynamo-probe.ts';
import { baselineSource, esbuildOptions, sdkPackagesIn } from './support/cold-bundles.ts';
import { progress } from './support/progress.ts';
import { S3CallsProbe, type S3Call } from './support/s3-calls-probe.ts';

const BUDGET = 1.3;
const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

interface Bundles {
  scenario: Scenario;
  handler: string;
  baseline: string;
  handlerBytes: number;
  baselineBytes: number;
  /** The AWS SDK client packages with code in the handler's bundle. */
  packages: string[];
  calls: DynamoCall[];
  s3Calls: S3Call[];
  journal: Journal;
}

export async function run(): Promise<Figure[]> {
  const world = await startWorld({
    POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
    POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
  });
  const workDir = mkdtempSync(join(tmpdir(), 'bench-cold-'));
  const coldStarts = await startColdStarts(workDir);
  try {
    const scenarios = await buildScenarios(world);
    const perHandler = [...new Map(scenarios.map((scenario) => [scenario.handler, scenario])).values()];

    const bundles: Bundles[] = [];
    const { s3 } = await import('../../functions/shared/clients/s3.ts');
    const s3Probe = new S3CallsProbe(s3);
    for (const scenario of perHandler) {
      // The calls a first request makes, recorded in-process from the starting state, which is then put back
      // (the table's; an object it deleted stays deleted, and deleting it again costs S3 the same).
      world.probe.watch({ journal: true });
      s3Probe.watch();
      await world.invoke(scenario.handler, scenario.event);
      const s3Calls = s3Probe.take();
      const { calls, journal } = world.probe.take();
      await world.probe.restore(journal, calls);

      const dir = join(workDir, scenario.handler);
      const built = await build({
        ...esbuildOptions,
        entryPoints: [join(projectRoot, `functions/handlers/${scenario.handler}.ts`)],
        outfile: join(dir, 'handler.mjs'),
      });
      const packages = sdkPackagesIn(built.metafile as Metafile);
      await build({
        ...esbuildOptions,
        stdin: {
          contents: baselineSource(packages, calls, s3Calls),
          resolveDir: projectRoot,
          sourcefile: 'baseline.mjs',
          loader: 'js',
        },
        outfile: join(dir, 'baseline.mjs'),
      });
      writeFileSync(join(dir, 'event.json'), JSON.stringify(scenario.event satisfies APIGatewayProxyEvent));
      bundles.push({
        scenario,
        packages,
        calls,
        s3Calls,
        journal,
        handler: join(dir, 'handler.mjs'),
        baseline: join(dir, 'baseline.mjs'),
        handlerBytes: statSync(join(dir, 'handler.mjs')).size,
        baselineBytes: statSync(join(dir, 'baseline.mjs')).size,
      });
    }
    progress(`  built ${bundles.length * 2} bundles`);

    /** Fresh starts of `candidate` and `baseline` for `bundle`'s request, its table put back after each. */
    const measure = (bundle: Bundles, candidate: string, baseline: string) =>
      coldStarts.measure(
        {
          label: bundle.scenario.label,
          dir: join(workDir, bundle.scenario.handler),
          restore: () => world.probe.restore(bundle.journal, bundle.calls),
        },
        candidate,
        baseline,
      );

    const rows: string[][] = [];
    const checks: Check[] = [];
    for (const bundle of bundles) {
      const { samples, subsegments } = await measure(bundle, bundle.handler, bundle.baseline);
      const handlerCpu = median(samples.candidate.map((s) => s.cpu));
      const baselineCpu = median(samples.baseline.map((s) => s.cpu));
      const handlerWall = median(samples.candidate.map((s) => s.wall));
      const baselineWall = median(samples.baseline.map((s) => s.wall));
      const sizeRatio = bundle.handlerBytes / bundle.baselineBytes;
      const startRatio = pairedRatio({
        candidate: samples.candidate.map((s) => s.cpu),
        baseline: samples.baseline.map((s) => s.cpu),
      });
      if (bundle.packages.length === 0) {
        rows.push([
          bundle.scenario.handler,
          kib(bundle.handlerBytes),
          '— (no SDK client)',
          '—',
          ms(handlerCpu, 0),
          ms(baselineCpu, 0),
          '—',
          `${ms(handlerWall, 0)} / ${ms(baselineWall, 0)}`,
          '—',
        ]);
        progress(
          `  cold ${bundle.scenario.handler}: no SDK client, ${kib(bundle.handlerBytes)}, start ${ms(handlerCpu, 0)} CPU`,
        );
        continue;
      }
      rows.push([
        bundle.scenario.handler,
        kib(bundle.handlerBytes),
        kib(bundle.baselineBytes),
        ratio(sizeRatio),
        ms(handlerCpu, 0),
        ms(baselineCpu, 0),
        ratio(startRatio),
        `${ms(handlerWall, 0)} / ${ms(baselineWall, 0)}`,
        subsegments.toFixed(1),
      ]);
      checks.push({
        name: `${bundle.scenario.handler}: bundle size / baseline`,
        measured: sizeRatio,
        limit: BUDGET,
        kind: 'max',
        shown: ratio(sizeRatio),
      });
      checks.push({
        name: `${bundle.scenario.handler}: cold start / baseline (CPU time)`,
        measured: startRatio,
        limit: BUDGET,
        kind: 'max',
        shown: ratio(startRatio),
      });
      progress(
        `  cold ${bundle.scenario.handler}: size ${ratio(sizeRatio)}, start ${ratio(startRatio)} (wall ${ratio(handlerWall / baselineWall)}), ${subsegments.toFixed(1)} subsegments`,
      );
    }

    // Figure 3b: the baseline itself with its clients traced, against it untraced, for a handler that calls
    // DynamoDB alone and one that calls S3 too.
    const tracingRows: string[][] = [];
    const tracingChecks: Check[] = [];
    const samplesOfTracing = [
      bundles.find((bundle) => bundle.calls.length > 0 && bundle.s3Calls.length === 0),
      bundles.find((bundle) => bundle.calls.length > 0 && bundle.s3Calls.length > 0),
    ].filter((bundle) => bundle !== undefined);
    for (const bundle of samplesOfTracing) {
      const tracedBaseline = join(workDir, bundle.scenario.handler, 'baseline-traced.mjs');
      await build({
        ...esbuildOptions,
        stdin: {
          contents: baselineSource(bundle.packages, bundle.calls, bundle.s3Calls, { traced: true }),
          resolveDir: projectRoot,
          sourcefile: 'baseline-traced.mjs',
          loader: 'js',
        },
        outfile: tracedBaseline,
      });
      const { samples, subsegments } = await measure(bundle, tracedBaseline, bundle.baseline);
      const tracedBytes = statSync(tracedBaseline).size;
      const startRatio = pairedRatio({
        candidate: samples.candidate.map((s) => s.cpu),
        baseline: samples.baseline.map((s) => s.cpu),
      });
      tracingRows.push([
        bundle.scenario.handler,
        String(bundle.calls.length + bundle.s3Calls.length),
        subsegments.toFixed(1),
        `+${(tracedBytes - bundle.baselineBytes).toLocaleString('en')} B`,
        ms(median(samples.candidate.map((s) => s.cpu)), 0),
        ms(median(samples.baseline.map((s) => s.cpu)), 0),
        ratio(startRatio),
      ]);
      tracingChecks.push({
        name: `${bundle.scenario.handler}: a subsegment per AWS call`,
        measured: subsegments,
        limit: bundle.calls.length + bundle.s3Calls.length,
        kind: 'equal',
        shown: subsegments.toFixed(1),
      });
      progress(
        `  tracing ${bundle.scenario.handler}: start ${ratio(startRatio)}, ${subsegments.toFixed(1)} subsegments`,
      );
    }
    return [
      {
        title: '3. Cold start',
        howToRead:
          'Each handler is bundled with the esbuild options of the CDK stack (`bundling` in lib/constructs/handler-function.ts: ESM, minified, external source map, node24, AWS SDK bundled in, createRequire banner). ' +
          'The baseline is bundled the same way from a module that only creates the AWS SDK clients the handler bundle holds (detected from its esbuild metafile) ' +
          'and, as its answer to the first request, sends the same DynamoDB and S3 calls the handler sends (S3 calls are requests sent, not URLs presigned). ' +
          'A client counts when its package has code in the bundle (esbuild metafile, bytes in the output), not when a module was read and tree-shaken away. ' +
          'A handler whose bundle holds no SDK client at all (health, OpenAPI document) has no SDK cost to compare with: its baseline would be an empty module, ' +
          'so, as figure 2 does for endpoints without storage calls, its own size and start are shown without a ratio or budget. ' +
          `Sizes are of the .mjs file (the source map is separate and not loaded). Start is measured inside a fresh Node process, from just before \`import()\` of the bundle to the handler's answer to one request; ` +
          `${coldStarts.rounds} fresh processes each, alternating; the start columns are medians, and the start ratio is the median of the ${coldStarts.rounds} per-round ratios (each round runs the two back to back, so a change in the machine's load between rounds cancels out). ` +
          `As in figure 2 the budget is checked on CPU time, with wall clock (handler / baseline) shown beside it. ` +
          `Both run in a sampled X-Ray trace (\`_X_AMZN_TRACE_ID\`) with a UDP socket of the benchmark as the X-Ray daemon (\`AWS_XRAY_DAEMON_ADDRESS\`): the handler's calls are traced (functions/shared/tracing.ts), the baseline's are not, so the start ratio includes tracing; the last column counts the subsegments the daemon took per handler start. Budgets: both ratios ≤ ${BUDGET}.`,
        columns: [
          'Handler',
          'Bundle',
          'Baseline bundle',
          'Size ratio',
          'Start CPU',
          'Baseline start CPU',
          'Start ratio',
          'Start wall (handler / baseline)',
          'Subsegments',
        ],
        rows,
        checks,
      },
      {
        title: '3b. Tracing at cold start',
        howToRead:
          `Figure 3's baseline of a handler, bundled a second time with its DynamoDB and S3 clients traced as the service's are (\`traced\` of functions/shared/tracing.ts: a subsegment per call, one UDP datagram to the daemon), against itself untraced, in the same trace and with the same daemon; ` +
          `${coldStarts.rounds} fresh processes each, alternating, as in figure 3 (CPU time, medians, the ratio the median of per-round ratios). ` +
          'The ratio is what tracing the AWS calls adds to a cold start, and figure 3 holds it within the cold-start budget; OpenTelemetry, measured the same way, is in docs/design.md (Tracing). ' +
          'Budget: every call the traced baseline sends reaches the daemon as a subsegment.',
        columns: [
          'Baseline of',
          'Calls',
          'Subsegments',
          'Size added',
          'Start CPU traced',
          'Start CPU untraced',
          'Ratio',
        ],
        rows: tracingRows,
        checks: tracingChecks,
      },
    ];
  } finally {
    coldStarts.close();
    rmSync(workDir, { recursive: true, force: true });
    await world.close();
  }
}
