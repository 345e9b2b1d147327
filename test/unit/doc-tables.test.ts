/**
 * The documentation's generated sections (lib/doc-tables.ts; docs/testing.md lists them) are what the code makes
 * of them now: each is made again in
 * memory and compared with the file, and a stale one fails naming the command that rewrites it. Each row of the
 * grants table is also held to the role statements of its functions, so the generator cannot drop a statement.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { envReads, generatedDocs, REGENERATE, SECTIONS, withSection } from '../../lib/doc-tables.ts';
import { roleStatements } from '../../lib/doc-tables/stack.ts';

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

describe('the grants table of docs/security.md', () => {
  const section = /\(grants\): do not edit -->\n([\s\S]*?)<!-- end generated -->/.exec(
    readFileSync('docs/security.md', 'utf8'),
  );
  /** Each function's cells as the document shows them: a row naming several functions gives each its cells. */
  const cellsOf = new Map<string, string[]>();
  for (const line of (section?.[1] ?? '').split('\n').slice(2)) {
    const [labels = '', ...cells] = line.split(' | ').map((cell) => cell.replace(/^\| |\s*\|$/g, ''));
    for (const label of labels.split(', ')) cellsOf.set(label, cells);
  }
  const prefixes = (text: string): string[] => [...text.matchAll(/`([A-Z]+#)`/g)].map((match) => match[1] as string);

  it.each([...roleStatements()])(
    '%s: each table statement of its role is in its row, and nothing more',
    (label, statements) => {
      const [read = '', write = ''] = cellsOf.get(label) ?? expect.fail(`no row names ${label}`);
      const granted = { read: new Set<string>(), write: new Set<string>() };
      for (const statement of statements) {
        const actions = [statement.Action].flat();
        const keys = statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
        if (keys === undefined || !actions.some((action) => action.startsWith('dynamodb:'))) continue;
        const kind = actions.includes('dynamodb:GetItem') ? 'read' : 'write';
        const named = [keys].flat().map((key) => String(key).replace(/\*$/, ''));
        for (const prefix of named) granted[kind].add(prefix);
        if (kind === 'write' && actions.length === 1) {
          const only = `${named.map((prefix) => `\`${prefix}\``).join(', ')} (${actions[0]!.replace('dynamodb:', '')} only)`;
          expect(write, `${label}: ${only}`).toContain(only);
        }
      }
      expect(new Set(prefixes(read)), `${label}: read`).toEqual(granted.read);
      expect(new Set(prefixes(write)), `${label}: write`).toEqual(granted.write);
    },
  );
});
