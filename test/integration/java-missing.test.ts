/**
 * Without a Java runtime DynamoDB Local cannot run: `npm start` (bin/local.ts) and `npm test` (its first step,
 * bin/require-java.ts) stop at once with one line that says what to install, and no stack trace.
 */
import { spawnSync } from 'node:child_process';
import { dirname } from 'node:path';
import { expect, it } from 'vitest';
import { JAVA_MISSING } from '../../lib/local/dynamodb-local.ts';

/** The environment of a machine with Node but no java: PATH holds only Node's own folder, no JAVA_HOME. */
const { JAVA_HOME: _javaHome, DYNAMODB_LOCAL_POOL: _engine, ...inherited } = process.env;
const withoutJava = {
  ...inherited,
  PATH: dirname(process.execPath),
  PORT: '0',
  DATA_DIR: '/nonexistent/never-created',
};

it.each([['bin/local.ts'], ['bin/require-java.ts']])('%s stops with one line naming what to install', (script) => {
  const result = spawnSync(process.execPath, [script], { env: withoutJava, encoding: 'utf8', timeout: 30_000 });
  expect(result.status).toBe(1);
  expect(result.stderr).toBe(`${JAVA_MISSING}\n`);
  expect(result.stdout).toBe('');
});
