/**
 * The documentation's generated sections (lib/doc-tables.ts: limits, environment variables, authorization
 * matrix, grants, functions, alarms, event types) are what the code makes of them now: each is made again in
 * memory and compared with the file, and a stale one fails naming the command that rewrites it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { envReads, generatedDocs, REGENERATE, SECTIONS, withSection } from '../../lib/doc-tables.ts';

describe('generated documentation sections', () => {
  const docs = generatedDocs();

  it.each([...new Set(SECTIONS.map((section) => section.file))])('%s is current', (file) => {
    const current = readFileSync(file, 'utf8');
    if (current !== docs.get(file)) {
      const stale = SECTIONS.filter(
        (section) => section.file === file && withSection(current, file, section.name, section.make()) !== current,
      ).map((section) => section.name);
      expect.fail(`${file}: generated section(s) ${stale.join(', ')} out of date; run \`${REGENERATE}\``);
    }
  });

  it('finds the variables the code reads, with their defaults', () => {
    const reads = new Map(envReads().map((read) => [read.name, read.fallback]));
    expect(reads.get('PULL_MAX_BYTES')).toBe(50 * 1024 * 1024);
    expect(reads.get('PULL_ALLOWED_PORTS')).toBe('80,443');
    expect(reads.get('PULL_ALLOW_LOOPBACK')).toBe(false);
    expect(reads.get('PORT')).toBe(3000);
    for (const name of ['POWERTOOLS_SERVICE_NAME', 'POWERTOOLS_METRICS_NAMESPACE', 'TABLE_NAME', 'S3_ENDPOINT'])
      expect(reads.has(name), name).toBe(true);
  });

  it('refuses a document whose markers are missing', () => {
    expect(() => withSection('# no markers\n', 'x.md', 'limits', 'table')).toThrow(/no section/);
  });
});
