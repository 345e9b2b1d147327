/**
 * Whether the SDK call being made belongs to a route's handler: not to the authorizer, nor to a function fed
 * in the background meanwhile (the table stream's publisher and sweeper, renditions, the webhook fan-out and
 * deliveries), which share the handlers' clients when everything runs from source in one process. Tests that
 * count a request's calls count only these (lib/local/source-invocations.ts names the running function).
 */
import { runningFunction } from '../../lib/local/source-invocations.ts';
import { ROUTELESS_FUNCTIONS } from '../../lib/constructs/routeless-functions.ts';

const ROUTELESS = new Set<string>(Object.values(ROUTELESS_FUNCTIONS).map((fn) => fn.handler));

export const inRouteHandler = (): boolean => {
  const running = runningFunction();
  return running !== undefined && !ROUTELESS.has(running);
};
