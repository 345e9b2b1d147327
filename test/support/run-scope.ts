/**
 * Whether a run ran the whole suite: every test file of the `source` project (every test file; `bundles`
 * runs some of them again), with no name filter (`-t`) or shard, which run part of a file's tests or of the files.
 */
import type { TestProject } from 'vitest/node';
import type { RunScope } from './metrics/check.ts';

export async function runScope(project: TestProject): Promise<RunScope> {
  const { vitest } = project;
  const ran = new Set(vitest.state.getFilepaths());
  const source = vitest.projects.find((candidate) => candidate.name === 'source');
  const partial = vitest.config.testNamePattern !== undefined || vitest.config.shard !== undefined;
  if (!source || partial) return { ran: ran.size, whole: false };
  const { testFiles } = await source.globTestFiles();
  return { ran: ran.size, whole: testFiles.every((file) => ran.has(file)) };
}
