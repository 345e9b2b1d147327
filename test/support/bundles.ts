/**
 * The vitest `bundles` project runs some files a second time with every function from its synthesized
 * asset (LOCAL_BUNDLES=1, vitest.config.ts). A test that reaches into the handlers' own process (fault
 * injection on their SDK clients, an event published in process, SDK calls counted by middleware) runs from
 * source only: in that project the handlers are other processes.
 */
import { it } from 'vitest';

export const runsBundles = process.env.LOCAL_BUNDLES === '1';

/** `it`, skipped in the `bundles` project: the test needs the handlers in its own process. */
export const inProcessIt = it.skipIf(runsBundles);
