/**
 * The SQS client: only the webhook functions import it (the fan-out sends
 * deliveries, the delivery function sets a failed message's retry delay). The endpoint comes from the SDK's
 * own AWS_ENDPOINT_URL_SQS when set: the local SQS front (lib/local/sqs-front.ts).
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { traced } from '../tracing.ts';

// Pure: a bundle that imports the module but never sends (the webhook routes other than a resume) drops it.
export const sqs = /* @__PURE__ */ traced(/* @__PURE__ */ new SQSClient({}));
