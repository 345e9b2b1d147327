/** The environment variables the service's code reads, found in its source, with the default each read falls back to. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A variable the code reads, where, and its default as the code writes it (undefined: none, or set elsewhere). */
export interface EnvRead {
  name: string;
  file: string;
  fallback?: string | number | boolean;
}

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(dir, name));

/** `50 * 1024 * 1024`, `24 * 60 * 60`, `100_000_000`: the numeric defaults of config.ts. */
const numberOf = (expression: string): number => {
  if (!/^[\d_ *+]+$/.test(expression)) throw new Error(`not a numeric default: ${expression}`);
  return expression
    .split('*')
    .map((factor) => Number(factor.trim().replaceAll('_', '')))
    .reduce((product, factor) => product * factor, 1);
};

const READ_PATTERNS: { pattern: RegExp; fallback: (match: RegExpMatchArray) => EnvRead['fallback'] }[] = [
  { pattern: /\bintEnv\(\s*'([A-Z_][A-Z0-9_]*)',\s*([\d_ *]+)\)/g, fallback: (match) => numberOf(match[2] as string) },
  { pattern: /\benv\('([A-Z_][A-Z0-9_]*)'\) \?\? '([^']*)'/g, fallback: (match) => match[2] },
  { pattern: /\benv\('([A-Z_][A-Z0-9_]*)'\) === 'true'/g, fallback: () => false },
  { pattern: /\b(?:requiredEnv|listEnv|env)\('([A-Z_][A-Z0-9_]*)'\)/g, fallback: () => undefined },
  {
    pattern: /\bprocess\.env\.([A-Z_][A-Z0-9_]*) \?\? (?:'([^']*)'|(\d+))/g,
    fallback: (match) => match[2] ?? Number(match[3]),
  },
  { pattern: /\bprocess\.env\.([A-Z_][A-Z0-9_]*)/g, fallback: () => undefined },
  { pattern: /\bpositiveNumber\(env, '([A-Z_][A-Z0-9_]*)'/g, fallback: () => undefined },
];

/** Files outside functions/ whose reads are settings of the service (the rest of lib/ and bin/ are tools). */
const SETTING_FILES = ['bin/local.ts', 'lib/local/throttle.ts', 'lib/local/service.ts'];

/**
 * Variables read that are not the service's settings: Lambda's own (`_HANDLER`, read by the local stand-in
 * of the runtime; the X-Ray daemon's address and the invocation's trace, functions/shared/tracing.ts), and
 * the test run's plumbing.
 */
const NOT_SETTINGS = new Set([
  '_HANDLER',
  'AWS_XRAY_DAEMON_ADDRESS',
  '_X_AMZN_TRACE_ID',
  'DYNAMODB_LOCAL_POOL',
  'AWS_CALL_LOG_DIR',
]);

export function envReads(): EnvRead[] {
  const found = new Map<string, EnvRead>();
  for (const file of [...sourceFiles('functions'), ...SETTING_FILES]) {
    const text = readFileSync(file, 'utf8');
    for (const { pattern, fallback } of READ_PATTERNS)
      for (const match of text.matchAll(pattern)) {
        const name = match[1] as string;
        if (NOT_SETTINGS.has(name)) continue;
        const seen = found.get(name);
        const value = fallback(match);
        if (!seen) found.set(name, { name, file, ...(value === undefined ? {} : { fallback: value }) });
        else if (seen.fallback === undefined && value !== undefined) seen.fallback = value;
      }
  }
  return [...found.values()];
}
