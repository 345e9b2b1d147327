import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { headingIds, linksOf, slugOf } from '../support/markdown-links.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** Every Markdown file the repository holds (README.md, docs/, client/, test/fixtures/images/, BENCHMARKS.md, ...). */
const markdownFiles = execFileSync('git', ['ls-files', '*.md'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((file) => file !== '');

/** Why a relative link of `file` does not resolve, or undefined when it does. External links are not fetched. */
function brokenBecause(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  if (target === '') return 'an empty target';
  const [path = '', anchor] = target.split('#', 2);
  const linked = path === '' ? join(ROOT, file) : resolve(ROOT, dirname(file), decodeURIComponent(path));
  if (path.startsWith('/')) return 'an absolute path (GitHub resolves it against the site, not the repository)';
  if (!linked.startsWith(ROOT + '/')) return 'a path outside the repository';
  if (!existsSync(linked)) return `${relative(ROOT, linked)} does not exist`;
  if (anchor === undefined) return undefined;
  if (statSync(linked).isDirectory() || !linked.endsWith('.md')) return 'an anchor on a file that is not Markdown';
  if (!headingIds(readFileSync(linked, 'utf8')).has(decodeURIComponent(anchor)))
    return `no heading of ${relative(ROOT, linked)} has the id "${anchor}"`;
  return undefined;
}

describe('links in the documentation', () => {
  it('finds the Markdown files the documentation is made of', () => {
    expect(markdownFiles).toEqual(
      expect.arrayContaining(['README.md', 'docs/testing.md', 'client/README.md', 'BENCHMARKS.md']),
    );
  });

  it.each(markdownFiles)('%s: every relative link and #anchor resolves', (file) => {
    const broken = linksOf(readFileSync(join(ROOT, file), 'utf8')).flatMap(({ line, target }) => {
      const reason = brokenBecause(file, target);
      return reason === undefined ? [] : [`${file}:${line}: (${target}) ${reason}`];
    });
    expect(broken).toEqual([]);
  });
});

describe("GitHub's heading ids", () => {
  it('lowercase the text, drop punctuation but - and _, and make each space a hyphen', () => {
    expect(slugOf('The deployed code (LOCAL_BUNDLES=1)')).toBe('the-deployed-code-local_bundles1');
    expect(slugOf('Checkout completion: one transaction')).toBe('checkout-completion-one-transaction');
    expect(slugOf('Libraries, and why')).toBe('libraries-and-why');
    expect(slugOf('A -- b')).toBe('a----b');
  });

  it('take the text of code, links and emphasis, and number repeated headings', () => {
    const ids = headingIds(
      [
        '# Tests',
        '## The deployed code (`LOCAL_BUNDLES=1`)',
        '## See [the API](api.md) **now**',
        '## Errors',
        '```md',
        '## Not a heading',
        '```',
        '## Errors',
        '### Errors',
      ].join('\n'),
    );
    expect([...ids]).toEqual([
      'tests',
      'the-deployed-code-local_bundles1',
      'see-the-api-now',
      'errors',
      'errors-1',
      'errors-2',
    ]);
  });

  it('find links outside code only', () => {
    const links = linksOf('[a](docs/api.md#errors) `[b](x.md)`\n```\n[c](y.md)\n```\n![d](e.png "title")');
    expect(links).toEqual([
      { line: 1, target: 'docs/api.md#errors' },
      { line: 5, target: 'e.png' },
    ]);
  });
});
