/**
 * docs/configuration.md: every environment variable the code reads (lib/environment-variables.ts describes
 * them), its default, who takes a value set for `npm start`, and its meaning.
 */
import { npmStartScope, VARIABLES, type NpmStartScope } from '../environment-variables.ts';
import { envReads, type EnvRead } from './env-reads.ts';
import { MIB, bytes, table } from './markdown.ts';

/** Who takes a value set for `npm start`, as the table's column says it (the prose above the table explains each). */
const NPM_START_CELL: Record<NpmStartScope, string> = {
  functions: 'functions',
  local: 'local only',
  stack: 'template',
};

const shownDefault = (read: EnvRead | undefined): string | undefined => {
  const value = read?.fallback;
  if (value === undefined) return undefined;
  if (typeof value === 'number' && value >= MIB && value % MIB === 0) return `\`${value}\` (${bytes(value)})`;
  return `\`${value}\``;
};

export function configurationTable(): string {
  const reads = new Map(envReads().map((read) => [read.name, read]));
  const undocumented = [...reads.keys()].filter((name) => !(name in VARIABLES));
  if (undocumented.length > 0)
    throw new Error(
      `read by the code, not described in lib/environment-variables.ts VARIABLES: ${undocumented.join(', ')}`,
    );
  const gone = Object.entries(VARIABLES)
    .filter(([name, doc]) => !doc.library && !reads.has(name))
    .map(([name]) => name);
  if (gone.length > 0)
    throw new Error(`described in lib/environment-variables.ts VARIABLES, read nowhere: ${gone.join(', ')}`);
  const rows = Object.entries(VARIABLES).map(([name, doc]) => [
    `\`${name}\``,
    doc.default ?? shownDefault(reads.get(name)) ?? '—',
    NPM_START_CELL[npmStartScope(name)],
    doc.meaning,
  ]);
  return table(['variable', 'default', 'set for `npm start`', 'meaning'], rows);
}
