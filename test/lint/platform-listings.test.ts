import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { platformNames, socialPlatforms } from '../../src/adapters/social/social-platforms.ts';
import { root } from './source-files.ts';

// Wherever the docs or openapi.yaml list the social platforms, the list is the catalogue's (its display names, or its
// ids in backticks), in the catalogue's order. A listing is found by the marker `<!-- platforms -->` written right
// before its first name: invisible once rendered (Markdown, and openapi.yaml's descriptions), and independent of the
// words around it, which stay free to change. Everything that reads as a list after the marker (any capitalised name
// or backticked id, joined by commas, "and" or "or") is compared, so a name the catalogue lacks fails as surely as a
// platform the listing lacks. Lists of some platforms (those that connect through OAuth, those without threads) are
// not listings; a list naming every platform without the marker fails, so each full list is under the check when
// the next platform comes.

const marker = '<!-- platforms -->';
const separator = String.raw`(?:,?\s+(?:and|or)\s+|,\s+)`;
const anyItem = String.raw`(?:\`[a-z0-9-]+\`|[A-Z][A-Za-z0-9]*(?: [A-Z][A-Za-z0-9]*)*)`;

const files = [
  'README.md',
  'bench/README.md',
  'openapi.yaml',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

type Catalogue = { ids: readonly string[]; names: readonly string[] };
const catalogue: Catalogue = { ids: socialPlatforms, names: socialPlatforms.map((platform) => platformNames[platform]) };

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

/** What is wrong with the platform lists of `text` (named `file` in the messages), given the catalogue. */
function listingProblems(file: string, text: string, { ids, names }: Catalogue): string[] {
  const problems: string[] = [];
  const marked = new Set<number>();
  for (const match of text.matchAll(new RegExp(`${marker}(${anyItem}(?:${separator}${anyItem})*)?`, 'g'))) {
    const start = match.index + marker.length;
    marked.add(start);
    const items = match[1]?.split(new RegExp(separator)) ?? [];
    const expected = items.every((item) => item.startsWith('`')) && items.length > 0 ? ids.map((id) => `\`${id}\``) : names;
    if (items.join('|') !== expected.join('|'))
      problems.push(`${file}:${lineOf(text, start)} lists ${items.join(', ') || 'nothing'}; the catalogue is ${expected.join(', ')}`);
  }
  const known = [...names.map((name) => `(?<![\\w-])${escaped(name)}(?![\\w-])`), ...ids.map((id) => `\`${escaped(id)}\``)].join('|');
  for (const match of text.matchAll(new RegExp(`(?:${known})(?:${separator}(?:${known}))*`, 'g'))) {
    const items = new Set(match[0].split(new RegExp(separator)));
    const complete = names.every((name) => items.has(name)) || ids.every((id) => items.has(`\`${id}\``));
    if (complete && !marked.has(match.index)) problems.push(`${file}:${lineOf(text, match.index)} names every platform without ${marker} before the first`);
  }
  return problems;
}

describe('lists of the social platforms', () => {
  it('when the README, docs/ and openapi.yaml are read, then every list of the platforms is the catalogue, marked', () => {
    const problems = files.flatMap((file) => listingProblems(file, readFileSync(join(root, file), 'utf8'), catalogue));
    expect(problems).toEqual([]);
    // The front door and the contract say where posts go.
    for (const file of ['README.md', 'openapi.yaml']) expect(readFileSync(join(root, file), 'utf8'), file).toContain(marker);
  });

  it('when the catalogue gains a platform, then a listing without it fails', () => {
    const grown = { ids: [...catalogue.ids, 'pinterest'], names: [...catalogue.names, 'Pinterest'] };
    const text = `Publishes to ${marker}${catalogue.names.join(', ')}.`;
    expect(listingProblems('page.md', text, catalogue)).toEqual([]);
    expect(listingProblems('page.md', text, grown)).toEqual([`page.md:1 lists ${catalogue.names.join(', ')}; the catalogue is ${grown.names.join(', ')}`]);
  });

  it('when a listing names a platform the catalogue lacks, or an id list misses one, then it fails', () => {
    const names = `${marker}${catalogue.names.join(', ')} and Pinterest`;
    const ids = `\`platform\`:\n  ${marker}${catalogue.ids
      .slice(1)
      .map((id) => `\`${id}\``)
      .join(', ')}.`;
    expect(listingProblems('page.md', names, catalogue)).toEqual([
      `page.md:1 lists ${catalogue.names.join(', ')}, Pinterest; the catalogue is ${catalogue.names.join(', ')}`,
    ]);
    expect(listingProblems('page.md', ids, catalogue)).toHaveLength(1);
  });

  it('when every platform is listed without the marker, then it fails; a list of some of them is left alone', () => {
    const [first, ...rest] = catalogue.names;
    expect(listingProblems('page.md', `Connects to\n${first}, ${rest.join(', ')}.`, catalogue)).toEqual([
      `page.md:2 names every platform without ${marker} before the first`,
    ]);
    expect(listingProblems('page.md', `OAuth platforms (${rest.slice(0, 3).join(', ')}) need an app.`, catalogue)).toEqual([]);
  });
});
