/**
 * The documentation speaks of the software as it is, not of how it was built: a sentence about a session, an
 * earlier version or the machine it was written on is out of date the day it is read. This check fails on the
 * words such sentences are made of, in the files a reader of the service reads (README.md, docs/*.md,
 * client/README.md), naming each line; a legitimate use goes in ALLOWED with its reason.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const HISTORY_WORDS = [
  'session',
  'this change',
  'used to',
  'was tried',
  'were tried',
  'this machine',
  'these machines',
  'this version',
  'this release',
  'engineers',
  'the issue',
];

/** A line that holds `text` may use `word`, for `reason`. */
const ALLOWED: { file: string; word: string; text: string; reason: string }[] = [
  {
    file: 'docs/configuration.md',
    word: 'session',
    text: "the signing role's session",
    reason: 'a presigned URL lives no longer than the AWS role session that signed it',
  },
];

const FILES = [
  'README.md',
  'client/README.md',
  ...readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const pattern = new RegExp(`\\b(${HISTORY_WORDS.join('|')})\\b`, 'gi');

/** `file:line: word` for every history word of `file` that no ALLOWED entry covers. */
function historyWordsOf(file: string, text: string): string[] {
  return text.split('\n').flatMap((line, index) =>
    [...line.matchAll(pattern)]
      .map((match) => (match[1] as string).toLowerCase())
      .filter(
        (word) => !ALLOWED.some((entry) => entry.file === file && entry.word === word && line.includes(entry.text)),
      )
      .map((word) => `${file}:${index + 1}: "${word}"`),
  );
}

describe('history words in the documentation', () => {
  it.each(FILES)('%s speaks of the software, not of how it was built', (file) => {
    expect(historyWordsOf(file, readFileSync(file, 'utf8'))).toEqual([]);
  });

  it('finds the words as words, in any case, and lets an allowed use pass', () => {
    expect(historyWordsOf('x.md', 'The issuer signs.\nAs it Used To do.')).toEqual(['x.md:2: "used to"']);
    expect(historyWordsOf('docs/configuration.md', "capped at the signing role's session")).toEqual([]);
  });

  it('keeps every allowed use in use', () => {
    for (const entry of ALLOWED)
      expect(readFileSync(entry.file, 'utf8'), `${entry.file}: ${entry.text}`).toContain(entry.text);
  });
});
