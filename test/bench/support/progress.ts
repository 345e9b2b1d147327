/** Progress lines go to stderr: a suite's stdout carries the handlers' own log and metric lines. */
export function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}
