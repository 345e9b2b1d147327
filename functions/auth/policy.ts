/**
 * IAM policies for API Gateway authorizer results. A policy allows every route the credential may call,
 * not just the one asked for, because API Gateway caches the result per credential and reuses it for
 * other routes. What it does not allow is answered 403 by API Gateway (and by the local front).
 */
import { resourcePattern, routes, type Credential } from '../routes.ts';
import { credentialsOf, type Principal } from './principal.ts';

export interface PolicyDocument {
  Version: '2012-10-17';
  Statement: { Action: 'execute-api:Invoke'; Effect: 'Allow' | 'Deny'; Resource: string[] }[];
}

/** `arn:aws:execute-api:<region>:<account>:<api-id>/<stage>/<METHOD>/<path>` → everything up to the stage. */
export function apiArnPrefix(methodArn: string): string {
  const [arn = '', stage = ''] = methodArn.split('/');
  return `${arn}/${stage}`;
}

/** A policy of one statement over the whole API: a refusal's Allow, or the Deny of a credential of another kind. */
export function wholeApiPolicy(effect: 'Allow' | 'Deny', methodArn: string): PolicyDocument {
  return {
    Version: '2012-10-17',
    Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: [`${apiArnPrefix(methodArn)}/*`] }],
  };
}

/**
 * The policy depends only on the credential kinds and the API's ARN prefix, so each is built once per warm
 * instance: building one compares every route's pattern with every other's.
 */
const policies = new Map<string, PolicyDocument>();

export function policyFor(principal: Principal, methodArn: string): PolicyDocument {
  const kinds = credentialsOf(principal);
  const prefix = apiArnPrefix(methodArn);
  const key = `${kinds.join(',')} ${prefix}`;
  let policy = policies.get(key);
  if (policy === undefined) policies.set(key, (policy = buildPolicy(kinds, prefix)));
  return policy;
}

function buildPolicy(kinds: Credential[], prefix: string): PolicyDocument {
  const patternOf = (route: (typeof routes)[number]) => `${prefix}/${resourcePattern(route)}`;
  const resources = routes.filter((route) => kinds.includes(route.credential)).map(patternOf);
  if (resources.length === 0) return wholeApiPolicy('Deny', prefix);
  // A `*` spans path segments: `DELETE /library/{itemGuid}` (a user's) would also allow
  // `DELETE /library/uploads/{itemGuid}` (a library key's). Such routes of other credentials are denied
  // outright; an explicit Deny wins over any Allow, and none of these patterns matches an allowed route.
  const shadowed = routes
    .filter((route) => route.credential !== 'none' && !kinds.includes(route.credential))
    .map(patternOf)
    .filter(
      (other) =>
        resources.some((allowed) => resourceMatches(allowed, other)) &&
        !resources.some((allowed) => resourceMatches(other, allowed)),
    );
  return {
    Version: '2012-10-17',
    Statement: [
      { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: resources },
      ...(shadowed.length > 0
        ? [{ Action: 'execute-api:Invoke' as const, Effect: 'Deny' as const, Resource: shadowed }]
        : []),
    ],
  };
}

/** Patterns come from the route table and one API's ARN, so this map stays as small as the policies. */
const compiled = new Map<string, RegExp>();

/** IAM-style match of an execute-api resource pattern, where `*` matches any run of characters. */
export function resourceMatches(pattern: string, arn: string): boolean {
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    regex = new RegExp(
      `^${pattern
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    );
    compiled.set(pattern, regex);
  }
  return regex.test(arn);
}

export function isAllowed(policy: PolicyDocument, methodArn: string): boolean {
  const matching = policy.Statement.filter((statement) =>
    statement.Resource.some((pattern) => resourceMatches(pattern, methodArn)),
  );
  return matching.length > 0 && matching.every((statement) => statement.Effect === 'Allow');
}
