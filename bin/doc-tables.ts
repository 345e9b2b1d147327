/**
 * `npm run docs:tables`: writes the documentation's generated sections (their list: docs/testing.md)
 * in place, from the code (lib/doc-tables.ts). `npm test` fails
 * while one is stale (test/unit/doc-tables.test.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { generatedDocs } from '../lib/doc-tables.ts';

for (const [file, text] of generatedDocs()) {
  if (readFileSync(file, 'utf8') === text) continue;
  writeFileSync(file, text);
  process.stdout.write(`${file}: generated sections rewritten\n`);
}
