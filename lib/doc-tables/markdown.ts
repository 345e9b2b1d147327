/** How the generated tables write numbers, sizes, times and tables in Markdown. */
export const KIB = 1024;
export const MIB = 1024 * KIB;
export const GIB = 1024 * MIB;

/** `1,000,000`: thousands separated as the documents write them. */
export const grouped = (value: number): string => value.toLocaleString('en-US');
export const bytes = (value: number): string => {
  if (value % GIB === 0) return `${value / GIB} GiB`;
  if (value % MIB === 0) return `${value / MIB} MiB`;
  if (value % KIB === 0) return `${value / KIB} KiB`;
  return `${grouped(value)} bytes`;
};
export const duration = (seconds: number): string => {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds >= 120 && seconds % 60 === 0) return `${seconds / 60} minutes`;
  return `${seconds} s`;
};
export const table = (header: string[], rows: string[][]): string =>
  [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
