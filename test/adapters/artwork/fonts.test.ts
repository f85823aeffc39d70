import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bundledFonts, charactersMissingFrom, resolveFont } from '../../../src/adapters/artwork/fonts.ts';

describe('bundledFonts', () => {
  it('when listed, then every family has a regular and a bold TrueType file on disk', () => {
    expect(bundledFonts.map((font) => font.family)).toEqual(['Inter', 'Roboto', 'Montserrat', 'Merriweather', 'Playfair Display']);
    for (const font of bundledFonts) {
      expect(font.regular).toMatch(/_400Regular\.ttf$/);
      expect(font.bold).toMatch(/_700Bold\.ttf$/);
      for (const file of [font.regular, font.bold]) {
        expect(readFileSync(file).readUInt32BE(0), file).toBe(0x00010000);
      }
    }
  });
});

describe('resolveFont', () => {
  it.each([
    ['Playfair Display', 'Playfair Display'],
    ['playfair display', 'Playfair Display'],
    ['PlayfairDisplay', 'Playfair Display'],
    ['  MONTSERRAT ', 'Montserrat'],
    ['roboto', 'Roboto'],
    ['Merri weather', 'Merriweather'],
    ['inter', 'Inter'],
  ])('when asked for "%s", then it resolves to the bundled %s without a substitution', (name, family) => {
    const font = resolveFont(name);
    expect(font.family).toBe(family);
    expect(font.substitutedFor).toBeUndefined();
    expect(font).toEqual(bundledFonts.find((candidate) => candidate.family === family));
  });

  it('when the font is not bundled, then it falls back to Inter and says what was asked for', () => {
    const font = resolveFont('Comic Sans');
    expect(font).toEqual({ ...bundledFonts[0], substitutedFor: 'Comic Sans' });
    expect(font.family).toBe('Inter');
  });

  it.each([[undefined], [''], ['   ']])('when no font is named (%j), then it is Inter without a substitution', (name) => {
    expect(resolveFont(name)).toEqual(bundledFonts[0]);
    expect(resolveFont(name).substitutedFor).toBeUndefined();
  });
});

describe('charactersMissingFrom', () => {
  const inter = resolveFont('Inter').bold;
  const roboto = resolveFont('Roboto').bold;

  it('when the text is Latin with accents and punctuation, then nothing is missing', async () => {
    expect(await charactersMissingFrom(inter, 'Café <launch> & "more" — naïve façade, 30% off!')).toEqual([]);
    expect(await charactersMissingFrom(roboto, 'Café <launch> & "more" — naïve façade, 30% off!')).toEqual([]);
  });

  it('when the text has emoji, then each is returned whole, including joined sequences', async () => {
    expect(await charactersMissingFrom(inter, 'Café ☕ and 👩‍💻 and 👍🏽')).toEqual(['☕', '👩‍💻', '👍🏽']);
  });

  it('when a symbol is in one font and not another, then only the font without it reports it', async () => {
    // Inter has arrows, check marks and U+2764 (Inter's cmap is format 12, Roboto's format 4: both are read).
    expect(await charactersMissingFrom(inter, 'Next → ✓ ❤️')).toEqual([]);
    expect(await charactersMissingFrom(roboto, 'Next → ✓ ❤️')).toEqual(['→', '✓', '❤️']);
  });

  it('when the text has characters outside the Basic Multilingual Plane the font does have, then they are not missing', async () => {
    expect(await charactersMissingFrom(inter, '\u{1F130}')).toEqual([]);
    expect(await charactersMissingFrom(roboto, '\u{1F130}')).toEqual(['\u{1F130}']);
  });
});
