import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

// The fonts post images are set in. They ship as npm packages, so every machine draws text with the same glyphs;
// system fonts differ between machines (the production image has none) and are never relied on.

export type BundledFont = { family: string; regular: string; bold: string };
export type ResolvedFont = BundledFont & { substitutedFor?: string };

const fontFile = createRequire(import.meta.url).resolve;

function bundled(family: string, packageName: string, fileStem: string): BundledFont {
  return {
    family,
    regular: fontFile(`@expo-google-fonts/${packageName}/400Regular/${fileStem}_400Regular.ttf`),
    bold: fontFile(`@expo-google-fonts/${packageName}/700Bold/${fileStem}_700Bold.ttf`),
  };
}

const defaultFont = bundled('Inter', 'inter', 'Inter');

export const bundledFonts: readonly BundledFont[] = [
  defaultFont,
  bundled('Roboto', 'roboto', 'Roboto'),
  bundled('Montserrat', 'montserrat', 'Montserrat'),
  bundled('Merriweather', 'merriweather', 'Merriweather'),
  bundled('Playfair Display', 'playfair-display', 'PlayfairDisplay'),
];

const comparable = (name: string) => name.replace(/[\s_-]+/g, '').toLowerCase();

/**
 * The bundled font a brand kit's free-text font name means ("playfair display", "PlayfairDisplay"...); any other
 * name gets Inter, with `substitutedFor` saying what was asked for.
 */
export function resolveFont(name: string | undefined): ResolvedFont {
  const wanted = name?.trim() ?? '';
  if (wanted === '') return defaultFont;
  const font = bundledFonts.find((candidate) => comparable(candidate.family) === comparable(wanted));
  return font ?? { ...defaultFont, substitutedFor: wanted };
}

const coverage = new Map<string, Promise<Set<number>>>();

/**
 * The characters of `text` (whole graphemes, so an emoji with its modifiers counts as one) that the font has no
 * glyph for. Text renderers would otherwise fall back to whatever system font is installed, or draw boxes.
 */
export async function charactersMissingFrom(file: string, text: string): Promise<string[]> {
  let codePoints = coverage.get(file);
  if (!codePoints) {
    codePoints = readFile(file).then(mappedCodePoints);
    coverage.set(file, codePoints);
  }
  const covered = await codePoints;
  const graphemes = Array.from(new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text), ({ segment }) => segment);
  return graphemes.filter((grapheme) =>
    Array.from(grapheme).some((character) => {
      const codePoint = character.codePointAt(0) as number;
      return !covered.has(codePoint) && !/[\s\p{Default_Ignorable_Code_Point}]/u.test(character);
    }),
  );
}

/** The code points a TrueType font maps to a glyph, read from its `cmap` table (format 12 if present, else 4). */
function mappedCodePoints(font: Buffer): Set<number> {
  const tableCount = font.readUInt16BE(4);
  let cmap = -1;
  for (let index = 0; index < tableCount; index++) {
    if (font.toString('latin1', 12 + 16 * index, 16 + 16 * index) === 'cmap') cmap = font.readUInt32BE(20 + 16 * index);
  }
  if (cmap < 0) throw new Error('The font has no cmap table');
  const subtables = Array.from({ length: font.readUInt16BE(cmap + 2) }, (_, index) => {
    const offset = cmap + font.readUInt32BE(cmap + 8 + 8 * index);
    return { platform: font.readUInt16BE(cmap + 4 + 8 * index), format: font.readUInt16BE(offset), offset };
  }).filter(({ platform }) => platform === 0 || platform === 3);
  const full = subtables.find(({ format }) => format === 12);
  if (full) return format12CodePoints(font, full.offset);
  const basic = subtables.find(({ format }) => format === 4);
  if (basic) return format4CodePoints(font, basic.offset);
  throw new Error('The font has no Unicode cmap subtable of format 4 or 12');
}

function format12CodePoints(font: Buffer, offset: number): Set<number> {
  const codePoints = new Set<number>();
  const groups = font.readUInt32BE(offset + 12);
  for (let group = 0; group < groups; group++) {
    const at = offset + 16 + 12 * group;
    const [first, last, firstGlyph] = [font.readUInt32BE(at), font.readUInt32BE(at + 4), font.readUInt32BE(at + 8)];
    for (let codePoint = first; codePoint <= last; codePoint++) {
      if (firstGlyph + codePoint - first !== 0) codePoints.add(codePoint);
    }
  }
  return codePoints;
}

function format4CodePoints(font: Buffer, offset: number): Set<number> {
  const codePoints = new Set<number>();
  const segments = font.readUInt16BE(offset + 6) / 2;
  const ends = offset + 14;
  const starts = ends + 2 * segments + 2;
  const deltas = starts + 2 * segments;
  const rangeOffsets = deltas + 2 * segments;
  for (let segment = 0; segment < segments; segment++) {
    const [first, last] = [font.readUInt16BE(starts + 2 * segment), font.readUInt16BE(ends + 2 * segment)];
    const delta = font.readUInt16BE(deltas + 2 * segment);
    const rangeOffset = font.readUInt16BE(rangeOffsets + 2 * segment);
    for (let codePoint = first; codePoint <= last && codePoint !== 0xffff; codePoint++) {
      // Per the OpenType spec, a non-zero idRangeOffset points into glyphIdArray relative to its own position.
      const glyph = rangeOffset === 0 ? (codePoint + delta) % 0x10000 : font.readUInt16BE(rangeOffsets + 2 * segment + rangeOffset + 2 * (codePoint - first));
      if (glyph !== 0) codePoints.add(codePoint);
    }
  }
  return codePoints;
}
