import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from './source-files.ts';

// The README is a front door to the pages in docs/: it stays short, links every page, and no link between the pages
// (anchors included) points at nothing. Measured figures belong in bench/README.md, and the runs behind a change in
// its closing note, not in the prose.

const pages = [
  'README.md',
  'bench/README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(join(root, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1]!)));
}

/** Every relative link of a page, as [target file relative to the root, anchor or ''], code blocks left out. */
function linksOf(page: string): Array<{ link: string; file: string; anchor: string }> {
  const text = readFileSync(join(root, page), 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!)
    .filter((link) => !/^[a-z]+:/.test(link))
    .map((link) => {
      const [path = '', anchor = ''] = link.split('#');
      const file = path === '' ? page : relative(root, join(root, dirname(page), path));
      return { link, file, anchor };
    });
}

describe('the docs', () => {
  it('when the README is read, then it is at most 200 lines', () => {
    expect(readFileSync(join(root, 'README.md'), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(200);
  });

  it('when the README is read, then it links every page of docs/ and bench/README.md', () => {
    const linked = new Set(linksOf('README.md').map(({ file }) => file));
    expect(pages.filter((page) => page !== 'README.md' && !linked.has(page))).toEqual([]);
  });

  it('when a page links a file or a heading, then it exists', () => {
    const broken = pages.flatMap((page) =>
      linksOf(page)
        .filter(({ file, anchor }) => !existsSync(join(root, file)) || (anchor !== '' && file.endsWith('.md') && !anchorsOf(file).has(anchor)))
        .map(({ link }) => `${page}: ${link}`),
    );
    expect(broken).toEqual([]);
  });

  it('when the README, the docs and src are read, then none tells of numbered benchmark runs or throwaway scripts', () => {
    const files = [
      'README.md',
      ...pages.filter((page) => page.startsWith('docs/')),
      ...readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => relative(root, join(entry.parentPath, entry.name))),
    ];
    const offenders = files.flatMap((file) =>
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .map((line, index) => ({ line, index }))
        .filter(({ line }) => /run [0-9]+\b|throwaway/.test(line))
        .map(({ index }) => `${file}:${index + 1}`),
    );
    expect(offenders).toEqual([]);
  });
});
