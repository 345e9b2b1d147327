/** What a benchmark suite reports, and how the runner writes it into BENCHMARKS.md. */

/** One budget: a measured figure against its limit. */
export interface Check {
  name: string;
  measured: number;
  limit: number;
  /** `max`: measured must not exceed the limit; `min`: must reach it; `equal`: must match it. */
  kind: 'max' | 'min' | 'equal';
  /** How the measured figure is shown (defaults to two decimals). */
  shown?: string;
}

export interface Figure {
  /** Section heading, e.g. "1. Storage round trips and capacity". */
  title: string;
  /** How to read the table: what is measured against what, and why the budget is what it is. */
  howToRead: string;
  columns: string[];
  rows: string[][];
  checks: Check[];
  notes?: string[];
}

export const passes = (check: Check): boolean =>
  check.kind === 'max'
    ? check.measured <= check.limit
    : check.kind === 'min'
      ? check.measured >= check.limit
      : check.measured === check.limit;

const limitText = (check: Check): string =>
  `${check.kind === 'max' ? '≤' : check.kind === 'min' ? '≥' : '='} ${check.limit}`;

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderFigure(figure: Figure): string {
  const lines = [`## ${figure.title}`, '', figure.howToRead, ''];
  if (figure.rows.length > 0) {
    lines.push(`| ${figure.columns.map(cell).join(' | ')} |`, `|${figure.columns.map(() => '---').join('|')}|`);
    for (const row of figure.rows) lines.push(`| ${row.map(cell).join(' | ')} |`);
    lines.push('');
  }
  const failed = figure.checks.filter((check) => !passes(check));
  lines.push(`Budgets: ${figure.checks.length - failed.length} of ${figure.checks.length} met.`, '');
  for (const check of failed)
    lines.push(`- **missed**: ${check.name}: ${check.shown ?? check.measured.toFixed(2)} (budget ${limitText(check)})`);
  for (const note of figure.notes ?? []) lines.push(`- ${note}`);
  lines.push('');
  return lines.join('\n');
}

export function describeFailure(check: Check): string {
  return `${check.name}: ${check.shown ?? check.measured.toFixed(2)}, budget ${limitText(check)}`;
}
