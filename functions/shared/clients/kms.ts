/**
 * The KMS client: only the webhook functions (webhook secrets) and the artwork link functions import it. The
 * endpoint comes from the SDK's own AWS_ENDPOINT_URL_KMS when set: the local stack's KMS stand-in
 * (lib/local/kms.ts). See clients/dynamodb.ts for why each service has its own module.
 */
import { KMSClient } from '@aws-sdk/client-kms';
import { traced } from '../tracing.ts';

export const kms = /* @__PURE__ */ traced(/* @__PURE__ */ new KMSClient({}));
