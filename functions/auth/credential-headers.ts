/**
 * Reading the credential headers, and telling a client that put a credential in the wrong place where it
 * belongs: a bearer token in `Authorization: Bearer <token>`, an API key in `X-SERVICE-API-Key`. A hint
 * is given from the value's shape only (a JWT's three dotted parts, an API key's UUID form), and it never
 * repeats the value.
 */
import { API_KEY_FORM } from '../store/api-key-store.ts';
import { headerOf, type RequestHeaders } from '../http/headers.ts';
import { API_KEY_HEADER, bearerChallenge, type Refusal } from './refusal.ts';

const looksLikeJwt = (value: string) => /^[\w-]+\.[\w-]+\.[\w-]*$/.test(value);

/** Header names clients commonly use for API keys or tokens, none of which this API reads. */
const MISPLACED_CREDENTIAL_HEADERS = [
  'x-api-key',
  'api-key',
  'apikey',
  'x-apikey',
  'x-auth-token',
  'x-access-token',
  'access-token',
  'authentication',
] as const;

const sendTokensAsBearer = 'send a bearer token as Authorization: Bearer <token>';
const sendKeysInHeader = `send an API key in the ${API_KEY_HEADER} header`;

/** The bearer token of an Authorization header, or why the header is refused. */
export function bearerTokenOf(authorization: string): { token: string } | { refused: Refusal } {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  const credential = bearer?.[1] ?? authorization.trim();
  if (API_KEY_FORM.test(credential))
    return {
      refused: { message: `The Authorization header carries what looks like an API key; ${sendKeysInHeader}.` },
    };
  if (bearer?.[1]) return { token: bearer[1] };
  // RFC 6750 §3.1: a request without a bearer token gets a challenge without an error code.
  const challenge = bearerChallenge();
  if (looksLikeJwt(credential))
    return { refused: { message: `The Authorization header lacks its scheme: ${sendTokensAsBearer}.`, challenge } };
  const scheme = /^([A-Za-z][\w-]{0,30})\s/.exec(authorization)?.[1];
  const which = scheme === undefined ? '' : ` (the ${scheme} scheme is not accepted)`;
  return {
    refused: {
      message: `The Authorization header is not of the form Bearer <token>${which}: ${sendTokensAsBearer}.`,
      challenge,
    },
  };
}

/** Undefined when the X-SERVICE-API-Key header may hold an API key; a refusal when it holds a bearer token. */
export function misplacedTokenOf(apiKey: string): Refusal | undefined {
  const value = apiKey.trim();
  if (!/^Bearer\s/i.test(value) && !looksLikeJwt(value)) return undefined;
  return {
    message: `The ${API_KEY_HEADER} header carries a bearer token; ${sendTokensAsBearer}.`,
    challenge: bearerChallenge(),
  };
}

/** A request with neither credential header: a hint when a credential sits under a header this API ignores. */
export function misplacedCredentialOf(headers: RequestHeaders): Refusal | undefined {
  for (const name of MISPLACED_CREDENTIAL_HEADERS) {
    const value = headerOf(headers, name)
      ?.replace(/^Bearer\s+/i, '')
      .trim();
    if (!value) continue;
    return looksLikeJwt(value)
      ? {
          message: `Bearer tokens do not go in the ${name} header; ${sendTokensAsBearer}.`,
          challenge: bearerChallenge(),
        }
      : { message: `API keys do not go in the ${name} header; ${sendKeysInHeader}.` };
  }
  return undefined;
}
