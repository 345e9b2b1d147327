/**
 * The EventBridge client, created at its first use rather than at load: only the handlers that publish
 * domain events import it (functions/shared/events.ts), and locally, or with no bus configured, it is
 * never needed. See clients/dynamodb.ts for why each service has its own module.
 */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { traced } from '../tracing.ts';

let client: EventBridgeClient | undefined;

export const eventBridge = (): EventBridgeClient => (client ??= traced(new EventBridgeClient({})));
