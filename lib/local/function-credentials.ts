/**
 * Local AWS credentials: one pair per function, as each Lambda function has a role of its own in AWS, so the
 * local stand-ins (S3, the DynamoDB recorder, EventBridge) can tell which function made a call and check its
 * signature; plus the one pair of the local tools (CLIs, tests, the stand-ins' own clients). None is a secret:
 * they are derived from the function's name and never leave loopback.
 */
export interface LocalCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** The local tools' pair (CLIs, tests, the TTL stand-in): no function's. */
export const TOOL_CREDENTIALS: LocalCredentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

const FUNCTION_KEY_PREFIX = 'LOCALFN';
/** A handler module name: lower-case words joined by hyphens, each starting with a letter (so camel case undoes). */
const FUNCTION_NAME = /^[a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*$/;

/**
 * The credentials of the function whose handler module is `functionName` (e.g. `create-basket`). The key id
 * is the name in camel case (`LOCALFNcreateBasket`): DynamoDB Local refuses key ids with anything but letters
 * and digits (UnrecognizedClientException).
 */
export function functionCredentials(functionName: string): LocalCredentials {
  if (!FUNCTION_NAME.test(functionName)) throw new Error(`not a handler module name: ${functionName}`);
  return {
    accessKeyId: `${FUNCTION_KEY_PREFIX}${functionName.replace(/-([a-z])/g, (_hyphen, letter: string) => letter.toUpperCase())}`,
    secretAccessKey: `local-secret-${functionName}`,
  };
}

/** The function an access key id belongs to, or undefined for the tools' key or one that is no function's. */
export function functionOfAccessKey(accessKeyId: string): string | undefined {
  const camelCase = accessKeyId.startsWith(FUNCTION_KEY_PREFIX) ? accessKeyId.slice(FUNCTION_KEY_PREFIX.length) : '';
  const functionName = camelCase.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  return FUNCTION_NAME.test(functionName) ? functionName : undefined;
}

/** The secret that signs with `accessKeyId`, or undefined for a key the local stand-ins do not know (S3's InvalidAccessKeyId). */
export function secretAccessKeyOf(accessKeyId: string): string | undefined {
  if (accessKeyId === TOOL_CREDENTIALS.accessKeyId) return TOOL_CREDENTIALS.secretAccessKey;
  const functionName = functionOfAccessKey(accessKeyId);
  return functionName ? functionCredentials(functionName).secretAccessKey : undefined;
}
