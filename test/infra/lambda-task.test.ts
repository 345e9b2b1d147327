/**
 * Assets run as Lambda runs them, apart from the repository (lib/local/bundles/lambda-task.ts): from a copy
 * laid out as /var/task, where what an asset reaches beyond itself fails as in Lambda, while in the local
 * stack's assembly, inside the repository, it quietly found the repository's files and packages. And the
 * renditions asset loads the sharp its copy carries (the twin of its arm64 one), not the repository's.
 */
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE_BANNER } from '../../lib/constructs/handler-function.ts';
import { functionProcess } from '../../lib/local/bundles/function-process.ts';
import { lambdaTaskRoot } from '../../lib/local/bundles/lambda-task.ts';
import { LOCAL_CDK_OUT, synthesizedFunctions } from '../../lib/local/bundles/synthesized-stack.ts';
import { localSynthesisContext } from '../../lib/local/service.ts';

const logs = mkdtempSync(join(tmpdir(), 'lambda-task-'));
/** Throwaway assets where the synthesized ones are, each with the bundles' banner (require, __dirname). */
const throwaway = (name: string, code: string) => {
  const dir = mkdtempSync(join(LOCAL_CDK_OUT, `asset.${name}-`));
  writeFileSync(join(dir, 'index.mjs'), `${BUNDLE_BANNER}\n${code}\nexport const handler = async () => loaded;`);
  return dir;
};
const readsPackageJson = throwaway(
  'reads-package-json',
  "const loaded = JSON.parse(require('node:fs').readFileSync(require('node:path').join(__dirname, '../../package.json'), 'utf8')).name;",
);
// A name esbuild cannot follow: the bundle leaves the import to the runtime.
const importsZod = throwaway(
  'imports-zod',
  "const name = ['z', 'od'].join('');\nconst loaded = typeof (await import(name)).z;",
);

afterAll(() => {
  for (const dir of [readsPackageJson, importsZod]) {
    rmSync(dir, { recursive: true, force: true });
    rmSync(dirname(dirname(lambdaTaskRoot(dir))), { recursive: true, force: true });
  }
  rmSync(logs, { recursive: true, force: true });
});

/** Runs the asset folder `dir` through the local Lambda runtime stand-in, with its handler `index.handler`. */
const running = (dir: string, environment: Record<string, string> = {}, handler = 'index.handler') =>
  functionProcess({
    functionName: `probe-${basename(dir)}`,
    assetDir: dir,
    timeoutSeconds: 30,
    memorySize: 1024,
    environment: { ...environment, _HANDLER: handler, AWS_REGION: 'us-east-1' },
    logFile: join(logs, `${basename(dir)}.log`),
  });

const invoke = async (dir: string, event: unknown = {}, environment?: Record<string, string>, handler?: string) => {
  const fn = running(dir, environment, handler);
  try {
    return await fn.invoke(event);
  } finally {
    await fn.close();
  }
};

describe('an asset run as LOCAL_BUNDLES runs it', () => {
  it('in the assembly, inside the repository, reads ../../package.json and imports zod by a computed name', async () => {
    expect(await invoke(readsPackageJson)).toBe('photo-commerce-service');
    expect(await invoke(importsZod)).toBe('object');
  });

  it('from its copy, as from /var/task, fails to load either, as Lambda does', async () => {
    const task = lambdaTaskRoot(readsPackageJson);
    expect(task.startsWith(join(tmpdir(), 'photo-commerce-lambda'))).toBe(true);
    expect(task.endsWith(join('var', 'task'))).toBe(true);
    await expect(invoke(task)).rejects.toThrow(/ENOENT: no such file or directory, open '.*package\.json'/);
    await expect(invoke(lambdaTaskRoot(importsZod))).rejects.toThrow("Cannot find package 'zod'");
  });
});

/** The shared objects the child processes of this one running in `cwd` have mapped (Linux's /proc). */
function mappedByChildrenIn(cwd: string): string[] {
  const children = readdirSync('/proc').filter((pid) => {
    if (!/^\d+$/.test(pid)) return false;
    try {
      const ppid = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1];
      return Number(ppid) === process.pid && readlinkSync(`/proc/${pid}/cwd`) === cwd;
    } catch {
      return false; // ended meanwhile
    }
  });
  expect(children.length, `a process running in ${cwd}`).toBeGreaterThan(0);
  const mapped = children.flatMap((pid) =>
    readFileSync(`/proc/${pid}/maps`, 'utf8')
      .split('\n')
      .map((line) => line.split(/\s+/).slice(5).join(' '))
      .filter((path) => /\.node$|\.so(\.\d+)*$/.test(path)),
  );
  return [...new Set(mapped)];
}

describe('the renditions asset', () => {
  const renditions = synthesizedFunctions(
    {
      tableName: 't',
      bucketName: 'b',
      eventBusName: 'e',
      webhookDeliveryQueueUrl: 'q',
      webhookKeyId: 'k',
      artworkLinkKeyId: 'l',
    },
    localSynthesisContext(process.env).stage,
  ).find((fn) => fn.module === 'make-renditions')!;

  /** The sharp binaries (sharp's and libvips's) an environment of the asset run from `dir` has loaded. */
  const sharpLoadedFrom = async (dir: string) => {
    const fn = running(dir, renditions.environment, renditions.handler);
    try {
      // sharp is loaded as the asset loads; an empty batch touches nothing else.
      expect(await fn.invoke({ Records: [] })).toEqual({ batchItemFailures: [] });
      return mappedByChildrenIn(dir).filter((path) => path.includes(`${join('node_modules', '@img')}/`));
    } finally {
      await fn.close();
    }
  };

  // Lambda's platform is linux-arm64; the machines that run the tests, linux-x64.
  it.runIf(process.platform === 'linux' && process.arch === 'x64')(
    "copy holds, beside the asset's arm64 sharp, exactly their x64 twins",
    () => {
      const shipped = readdirSync(join(renditions.assetDir, 'node_modules', '@img'));
      expect(readdirSync(join(lambdaTaskRoot(renditions.assetDir), 'node_modules', '@img')).sort()).toEqual(
        [...shipped, 'sharp-libvips-linux-x64', 'sharp-linux-x64'].sort(),
      );
    },
  );

  it.runIf(process.platform === 'linux')(
    "loads sharp from its copy; in the assembly it loaded the repository's",
    async () => {
      const repository = dirname(LOCAL_CDK_OUT);
      const inAssembly = await sharpLoadedFrom(renditions.assetDir);
      expect(inAssembly.some((path) => path.startsWith(join(repository, 'node_modules', '@img')))).toBe(true);

      const task = lambdaTaskRoot(renditions.assetDir);
      const fromCopy = await sharpLoadedFrom(task);
      expect(fromCopy.some((path) => /sharp-[\w.-]+\.node$/.test(path))).toBe(true);
      expect(fromCopy.some((path) => /libvips-cpp\.so/.test(path))).toBe(true);
      expect(fromCopy.filter((path) => !path.startsWith(`${task}/`))).toEqual([]);
    },
  );
});
