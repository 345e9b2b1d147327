/**
 * vitest global setup: synthesizes the local stack (cdk.out.local) once for the run, with the local stack's settings, when it is
 * missing or stale, so the files that run the functions from their assets (the `bundles` project,
 * LOCAL_BUNDLES=1) find it ready and never synthesize at the same time.
 */
import { localSynthesisContext } from '../../lib/local/service.ts';
import { staleness, synthesize } from '../../lib/local/bundles/synthesized-stack.ts';

export default function setup(): void {
  const context = localSynthesisContext(process.env);
  const stale = staleness(context);
  if (!stale) return;
  process.stdout.write(`synthesizing the local stack for the bundles project: ${stale}\n`);
  synthesize(context);
}
