/**
 * Room to grow under CloudFormation's quotas: every synthesized template (the root and each nested route
 * group) stays within 60 % of each per-template quota, today and with twice today's routes, and
 * docs/deploy.md states what a route costs as measured here.
 */
import fs, { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { routes, type Route } from '../../functions/routes.ts';
import type { SynthesizedTemplate } from '../../lib/synthesized-templates.ts';
import { synthServiceStack } from './stack.ts';

/**
 * CloudFormation's per-template quotas (User Guide, "Understand CloudFormation quotas"). The size is that
 * of a template CloudFormation reads from S3, as CDK uploads it: 1 MB, counted here as 10^6 bytes.
 */
const QUOTAS = { resources: 500, outputs: 200, parameters: 200, bytes: 1_000_000 };
const ROOM = 0.6;

type Usage = Record<keyof typeof QUOTAS, number>;

function usageOf(outdir: string, { file, template }: SynthesizedTemplate): Usage {
  return {
    resources: Object.keys(template.Resources).length,
    outputs: Object.keys(template.Outputs ?? {}).length,
    parameters: Object.keys(template.Parameters ?? {}).length,
    // The file as CDK writes and uploads it.
    bytes: statSync(join(outdir, file)).size,
  };
}

/** One line per template and quota that passes ROOM, with the numbers. */
function overRoom(outdir: string, templates: SynthesizedTemplate[]): string[] {
  return templates.flatMap((entry) => {
    const usage = usageOf(outdir, entry);
    return (Object.keys(QUOTAS) as (keyof Usage)[])
      .filter((quota) => usage[quota] > ROOM * QUOTAS[quota])
      .map(
        (quota) =>
          `${entry.file}: ${quota} ${usage[quota]} of ${QUOTAS[quota]} (${Math.round((100 * usage[quota]) / QUOTAS[quota])} %, at most ${ROOM * 100} %)`,
      );
  });
}

/** Each route once more, at `<path>/twin` and named `<handler>-twin`: every route group twice its size. */
const twinned: Route[] = [
  ...routes,
  ...routes.map((route) => ({ ...route, path: `${route.path}/twin`, handler: `${route.handler}-twin` })),
];

const countResources = (templates: SynthesizedTemplate[], where: 'root' | 'nested', except?: string) =>
  templates
    .filter(({ path }) => (where === 'root') === (path.length === 0))
    .flatMap(({ template }) => Object.values(template.Resources))
    .filter((resource) => resource.Type !== except).length;

let today: ReturnType<typeof synthServiceStack>;
let twice: ReturnType<typeof synthServiceStack>;

beforeAll(() => {
  today = synthServiceStack();
  // A function's entry module must exist; a twin runs its original's.
  const exists = fs.existsSync;
  const spy = vi
    .spyOn(fs, 'existsSync')
    .mockImplementation((path) => exists(String(path).replace(/-twin\.ts$/, '.ts')));
  try {
    twice = synthServiceStack({ routes: twinned });
  } finally {
    spy.mockRestore();
  }
}, 240_000);

afterAll(() => {
  for (const { outdir } of [today, twice]) fs.rmSync(outdir, { recursive: true, force: true });
});

describe('CloudFormation quotas', () => {
  it('splits the routes into nested stacks, each of which holds twice as many functions with twice the routes', () => {
    expect(today.templates.length).toBeGreaterThan(1);
    const functionsPerTemplate = ({ templates }: typeof today) =>
      templates.map(({ path, template }) => [
        path.join('/'),
        Object.values(template.Resources).filter((resource) => resource.Type === 'AWS::Lambda::Function').length,
      ]);
    const doubled = functionsPerTemplate(today).map(([path, count]) => [path, path === '' ? count : 2 * Number(count)]);
    expect(functionsPerTemplate(twice)).toEqual(doubled);
  });

  it(`keeps every template within ${ROOM * 100} % of each quota`, () => {
    expect(overRoom(today.outdir, today.templates)).toEqual([]);
  });

  it(`keeps every template within ${ROOM * 100} % of each quota with twice today's routes`, () => {
    expect(overRoom(twice.outdir, twice.templates)).toEqual([]);
  });

  it("states in docs/deploy.md what a route costs, as measured: resources in its group's stack and in the root", () => {
    // Each twin hangs from a path segment of its own (`twin`): one API resource, counted apart.
    const perRoute = (where: 'root' | 'nested') =>
      (countResources(twice.templates, where, 'AWS::ApiGateway::Resource') -
        countResources(today.templates, where, 'AWS::ApiGateway::Resource')) /
      routes.length;
    const measured = { nested: perRoute('nested'), root: perRoute('root') };
    expect(Number.isInteger(measured.nested) && Number.isInteger(measured.root), JSON.stringify(measured)).toBe(true);
    const doc = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
    const stated =
      /A route costs \*\*(\d+) resources\*\*: (\d+) in its group's nested stack .*? and (\d+) in the root/s.exec(doc);
    expect(stated, 'docs/deploy.md, Adding a route: "A route costs **N resources**: ..."').not.toBeNull();
    expect(stated!.slice(1).map(Number)).toEqual([measured.nested + measured.root, measured.nested, measured.root]);
  });
});
