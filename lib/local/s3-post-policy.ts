/**
 * A browser-based upload's POST policy as S3 checks it (S3's "Creating a POST policy" and "Authenticating
 * requests: browser-based uploads using POST"): the policy's SigV4 signature, its expiration, every
 * condition against the form's fields, every field named by a condition, and `content-length-range`
 * against the file's size once it has arrived.
 */
import { S3Error } from './s3-error.ts';
import { secretOf, signatureDoesNotMatch, signatureMatches, signingKey } from './s3-signature-v4.ts';

/** The form's fields before the file, names in lower case (S3 compares field names without case). */
export type PostFields = Map<string, string>;

type Condition = Record<string, unknown> | unknown[];

export interface VerifiedPolicy {
  accessKeyId: string;
  /** The object key the form names (`${filename}` replaced by the file's name). */
  key: string;
  /** The bounds of `content-length-range`, when the policy has one. */
  sizeRange?: { min: number; max: number };
  /** S3's refusal of a validly signed policy the form does not satisfy (expired, a condition failed): reported, then thrown. */
  refusal?: Error;
}

const invalidAccordingToPolicy = (reason: string) =>
  new S3Error('AccessDenied', `Invalid according to Policy: ${reason}`);

/** Form fields S3 never asks a condition for. */
const exempt = (name: string) => ['policy', 'x-amz-signature', 'file'].includes(name) || name.startsWith('x-ignore-');

/** The policy's conditions as [name (lower case, no `$`), test] pairs, or S3's InvalidPolicyDocument. */
function parsedConditions(
  conditions: unknown,
): { name: string; text: string; holds: (value: string | undefined) => boolean }[] {
  if (!Array.isArray(conditions))
    throw new S3Error('InvalidPolicyDocument', "Invalid Policy: Invalid 'conditions' value: must be a List.");
  return (conditions as Condition[]).flatMap((condition) => {
    // As S3 names a failed condition: `["eq", "$key", "uploads/…"]`.
    const text = Array.isArray(condition) ? `[${condition.map((item) => JSON.stringify(item)).join(', ')}]` : '';
    if (!Array.isArray(condition))
      return Object.entries(condition).map(([name, expected]) => ({
        name: name.toLowerCase(),
        text: `["eq", "$${name}", ${JSON.stringify(expected)}]`,
        holds: (value: string | undefined) => value === String(expected),
      }));
    const [operator, field, expected] = condition as [unknown, unknown, unknown];
    if (String(operator).toLowerCase() === 'content-length-range') return [];
    const name = String(field).replace(/^\$/, '').toLowerCase();
    if (operator === 'eq') return [{ name, text, holds: (value: string | undefined) => value === String(expected) }];
    if (operator === 'starts-with')
      return [
        { name, text, holds: (value: string | undefined) => value !== undefined && value.startsWith(String(expected)) },
      ];
    throw new S3Error('InvalidPolicyDocument', `Invalid Policy: Invalid Condition: ${text}`);
  });
}

function sizeRangeOf(conditions: unknown[]): VerifiedPolicy['sizeRange'] {
  const range = conditions.find(
    (condition): condition is unknown[] =>
      Array.isArray(condition) && String(condition[0]).toLowerCase() === 'content-length-range',
  );
  return range ? { min: Number(range[1]), max: Number(range[2]) } : undefined;
}

/**
 * Verifies the policy of a POST to `bucket`; `filename` is the file part's name. Throws S3's error for a
 * form that is not signed, or signed with an unknown key or a wrong signature; answers the signer, and
 * the refusal when the policy is expired or the form breaks it.
 */
export function verifyPostPolicy(
  bucket: string,
  fields: PostFields,
  filename: string,
  now = Date.now(),
): VerifiedPolicy {
  const policy = fields.get('policy');
  const signature = fields.get('x-amz-signature');
  const credential = fields.get('x-amz-credential');
  if (policy === undefined || signature === undefined || credential === undefined)
    throw new S3Error('AccessDenied', 'Access Denied');
  if (fields.get('x-amz-algorithm') !== 'AWS4-HMAC-SHA256')
    throw new S3Error('InvalidArgument', 'Form field x-amz-algorithm must be AWS4-HMAC-SHA256');
  const [accessKeyId = '', ...scope] = credential.split('/');
  const secret = secretOf(accessKeyId);
  if (!/^[0-9a-f]{64}$/.test(signature) || !signatureMatches(signingKey(secret, scope.join('/')), policy, signature))
    throw signatureDoesNotMatch();

  let document: { expiration?: unknown; conditions?: unknown };
  try {
    document = JSON.parse(Buffer.from(policy, 'base64').toString('utf8')) as typeof document;
  } catch {
    throw new S3Error('InvalidPolicyDocument', 'Invalid Policy: Invalid JSON.');
  }
  const key = (fields.get('key') ?? '').replaceAll('${filename}', filename);
  const conditions = parsedConditions(document.conditions);
  const verified: VerifiedPolicy = { accessKeyId, key, sizeRange: sizeRangeOf(document.conditions as unknown[]) };
  const expiration = Date.parse(String(document.expiration));
  if (Number.isNaN(expiration))
    throw new S3Error('InvalidPolicyDocument', "Invalid Policy: Invalid 'expiration' value.");
  if (now > expiration) return { ...verified, refusal: invalidAccordingToPolicy('Policy expired.') };
  // The bucket is the request's, the key the one stored: what the conditions on them constrain.
  const valueOf = (name: string) => (name === 'bucket' ? bucket : name === 'key' ? key : fields.get(name));
  const failed = conditions.find((condition) => !condition.holds(valueOf(condition.name)));
  if (failed) return { ...verified, refusal: invalidAccordingToPolicy(`Policy Condition failed: ${failed.text}`) };
  const named = new Set(conditions.map((condition) => condition.name));
  const extra = [...fields.keys()].filter((name) => !exempt(name) && !named.has(name));
  if (extra.length > 0)
    return { ...verified, refusal: invalidAccordingToPolicy(`Extra input fields: ${extra.join(', ')}`) };
  return verified;
}

/** S3's refusal of a file outside the policy's `content-length-range`, or undefined when it is within. */
export function sizeRefusal(range: VerifiedPolicy['sizeRange'], size: number): Error | undefined {
  if (range && size > range.max)
    return new S3Error('EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size');
  if (range && size < range.min)
    return new S3Error('EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed size');
  return undefined;
}
