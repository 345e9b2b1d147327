/**
 * Lints an OpenAPI document with Redocly's lint engine (@redocly/openapi-core, the library behind
 * `redocly lint`) and the repository's redocly.yaml. In-process and offline: the document is written to a
 * temporary file and only local `$ref`s are resolved; the CLI's telemetry and update check never run.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lint, loadConfig } from '@redocly/openapi-core';

const CONFIG = fileURLToPath(new URL('../../redocly.yaml', import.meta.url));

/** Every problem the linter reports, one line each: `severity rule: message at pointer`. */
export async function lintOpenApi(document: unknown): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document, null, 2));
    const problems = await lint({ ref: file, config: await loadConfig({ configPath: CONFIG }) });
    return problems.map(
      (problem) =>
        `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location.map((where) => where.pointer).join(', ')}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
