/** IAM's wildcard matching of actions and resources, and the condition keys a statement tests. */
import type { Json } from './intrinsics.ts';
import type { PolicyStatement } from './template-access.ts';

const patternCache = new Map<string, RegExp>();

/** Whether `value` matches the IAM pattern `pattern` (`*` any run, `?` one character; actions ignore case). */
export function matches(pattern: string, value: string, ignoreCase = false): boolean {
  const cacheKey = `${ignoreCase ? 'i' : 's'}${pattern}`;
  let regex = patternCache.get(cacheKey);
  if (!regex) {
    const source = pattern
      .split('')
      .map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
      .join('');
    regex = new RegExp(`^${source}$`, ignoreCase ? 'i' : '');
    patternCache.set(cacheKey, regex);
  }
  return regex.test(value);
}

export const asList = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/** Whether one of the statement's actions (`Action`) names `action`. */
export const matchesAny = (actions: string | string[], action: string): boolean =>
  asList(actions).some((pattern) => matches(pattern, action, true));

/** The condition keys a statement tests, without the operators' set and IfExists qualifiers. */
export const conditionKeysOf = (statement: PolicyStatement): string[] =>
  Object.entries(statement.Condition ?? {})
    .filter(([operator]) => !operator.endsWith('IfExists'))
    .flatMap(([, keys]) => Object.keys(keys as Record<string, Json>));
