/**
 * How much of the suite a run ran: the test files of the `source` project (every test file; `bundles` runs
 * some of them again) that ran, out of all of them. A name filter (`-t`) or a shard runs part of a file's
 * tests or part of the files: then the run is partial whatever the count says.
 */
import type { TestProject } from 'vitest/node';
import type { RunScope } from './metrics/check.ts';

export async function runScope(project: TestProject): Promise<RunScope> {
  const { vitest } = project;
  const source = vitest.projects.find((candidate) => candidate.name === 'source');
  if (!source) return { ran: 0, of: 1 };
  const { testFiles } = await source.globTestFiles();
  const ran = new Set(vitest.state.getFilepaths());
  const partial = vitest.config.testNamePattern !== undefined || vitest.config.shard !== undefined;
  return { ran: partial ? 0 : testFiles.filter((file) => ran.has(file)).length, of: testFiles.length };
}
