/**
 * The local stack's own cloud assembly (lib/local/bundles/synthesized-stack.ts). `LOCAL_BUNDLES=1 npm start`
 * after `cdk synth` once read the synth's cdk.out, where the local stack's settings file was left behind, took
 * it for its own and died with "no stack PhotoCommerce-local in manifest.json". The local stack synthesizes
 * into a folder `cdk synth` never writes, and takes its folder for stale once any other synthesis wrote there.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { LOCAL_CDK_OUT, staleness } from '../../lib/local/bundles/synthesized-stack.ts';
import { localSynthesisContext } from '../../lib/local/service.ts';

const projectRoot = dirname(LOCAL_CDK_OUT);
const scratch = mkdtempSync(join(tmpdir(), 'local-assembly-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

it('is a folder of its own, not where `cdk synth` writes (cdk.json `output`, or cdk.out)', () => {
  const { output = 'cdk.out' } = JSON.parse(readFileSync(join(projectRoot, 'cdk.json'), 'utf8')) as { output?: string };
  const local = relative(projectRoot, LOCAL_CDK_OUT);
  expect(local).toBe('cdk.out.local');
  expect(local).not.toBe(output);
  expect(relative(join(projectRoot, output), LOCAL_CDK_OUT).startsWith('..')).toBe(true);
});

it('is stale once another synthesis wrote its manifest after the local stack (`cdk synth -o cdk.out.local`)', () => {
  const context = localSynthesisContext(process.env);
  // As the run's global setup left it, and a copy of its settings and manifest, times kept.
  expect(staleness(context)).toBeUndefined();
  for (const file of ['local-settings.json', 'manifest.json'])
    cpSync(join(LOCAL_CDK_OUT, file), join(scratch, file), { preserveTimestamps: true });
  expect(staleness(context, scratch)).toBeUndefined();

  // What `cdk synth` of another stage writes over it, leaving the settings file alone.
  const manifest = join(scratch, 'manifest.json');
  writeFileSync(manifest, JSON.stringify({ version: '48.0.0', artifacts: { 'PhotoCommerce-dev': {} } }));
  const settingsTime = statSync(join(scratch, 'local-settings.json')).mtime;
  utimesSync(manifest, settingsTime, new Date(settingsTime.getTime() + 1000));
  expect(staleness(context, scratch)).toMatch(/was synthesized again since, not by the local stack$/);
});
