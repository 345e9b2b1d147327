/**
 * The links and headings of a Markdown file, as GitHub renders them, for the documentation link check
 * (test/unit/doc-links.test.ts). No Markdown parser is a dependency, and the documentation uses a small
 * part of the syntax: ATX headings (`## Title`), inline links and images (`[text](target)`), fenced code
 * blocks and code spans, inside which nothing is a link or a heading.
 */

export interface MarkdownLink {
  line: number;
  target: string;
}

/** GitHub's heading ids (github-slugger): lowercase, punctuation other than `-` and `_` removed, each space a `-`. */
export function slugOf(headingText: string): string {
  return headingText
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The text GitHub makes a heading's id from: links become their text; code, emphasis and trailing #s go. */
function headingText(source: string): string {
  return source
    .replace(/\s+#+\s*$/, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .replace(/(\*\*|\*|__)(.+?)\1/g, '$2')
    .trim();
}

/** Each line with its code (fenced blocks, code spans) blanked, so their text is neither link nor heading. */
function proseLines(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split('\n').map((line) => {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker !== undefined) {
      fence = marker;
      return '';
    }
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      return '';
    }
    return line.replace(/(`+)[^`]*?\1/g, (span) => ' '.repeat(span.length));
  });
}

/** The ids of the file's headings, in order; a repeated heading gets -1, -2, ... as on GitHub. */
export function headingIds(markdown: string): Set<string> {
  const ids = new Set<string>();
  const code = proseLines(markdown);
  markdown.split('\n').forEach((line, index) => {
    if (code[index] === '') return;
    const heading = /^\s{0,3}#{1,6}\s+(.*)$/.exec(line)?.[1];
    if (heading === undefined) return;
    const base = slugOf(headingText(heading));
    let id = base;
    for (let n = 1; ids.has(id); n++) id = `${base}-${n}`;
    ids.add(id);
  });
  return ids;
}

/** Every inline link and image target outside code, with its 1-based line. */
export function linksOf(markdown: string): MarkdownLink[] {
  return proseLines(markdown).flatMap((line, index) =>
    [...line.matchAll(/\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => ({
      line: index + 1,
      target: match[1] ?? '',
    })),
  );
}
