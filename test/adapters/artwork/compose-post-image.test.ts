import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BrandColors, BrandFonts } from '../../../src/adapters/database/entities/brand-kit.ts';
import { composePostImage, type ComposePostImageInput } from '../../../src/adapters/artwork/compose-post-image.ts';
import { renderLocalArtwork } from '../../../src/adapters/artwork/local-artwork.ts';
import { allPostFormats, postFormats, type PostFormat } from '../../../src/adapters/artwork/post-formats.ts';
import { makeBlankPng } from '../../support/images.ts';

type Region = { left: number; top: number; width: number; height: number };
type Pixels = { data: Buffer; width: number; height: number };

const gray = '#808080';
const navyKit: BrandColors = { primary: '#1e3a8a', accent: '#00ff00' };
const longTitle =
  'Spring collection: thirty percent off everything in store this weekend only, so bring a friend, ' +
  'try the new seasonal menu, meet the makers, and stay for live music on the terrace from six until late!!';

let artworks: Record<PostFormat, Buffer>;
let grayArtwork: Buffer;

beforeAll(async () => {
  const rendered = await Promise.all(allPostFormats.map((format) => renderLocalArtwork({ prompt: 'Spring launch', seed: 1, format, colors: {} })));
  artworks = Object.fromEntries(allPostFormats.map((format, index) => [format, rendered[index]])) as Record<PostFormat, Buffer>;
  grayArtwork = await solid(gray, 300, 500);
});

function solid(colour: string, width: number, height: number, format: 'png' | 'jpeg' | 'webp' = 'png'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: colour } })
    .toFormat(format)
    .toBuffer();
}

function compose(overrides: Partial<ComposePostImageInput> & { format: PostFormat }) {
  const fonts: BrandFonts = {};
  return composePostImage({ artwork: grayArtwork, title: 'Spring launch', colors: {}, fonts, logo: null, ...overrides });
}

async function pixelsOf(png: Buffer): Promise<Pixels> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

function pixelAt({ data, width }: Pixels, x: number, y: number): [number, number, number] {
  const offset = (y * width + x) * 3;
  return [data[offset] as number, data[offset + 1] as number, data[offset + 2] as number];
}

function meanDifference(first: Pixels, second: Pixels, region: Region): number {
  let total = 0;
  for (let y = region.top; y < region.top + region.height; y++) {
    for (let x = region.left; x < region.left + region.width; x++) {
      const [a, b] = [pixelAt(first, x, y), pixelAt(second, x, y)];
      total += Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]) + Math.abs(a[2] - b[2]);
    }
  }
  return total / (region.width * region.height * 3);
}

function countPixels(pixels: Pixels, region: Region, matches: (rgb: [number, number, number]) => boolean): number {
  let count = 0;
  for (let y = region.top; y < region.top + region.height; y++) {
    for (let x = region.left; x < region.left + region.width; x++) if (matches(pixelAt(pixels, x, y))) count++;
  }
  return count;
}

const rgbOf = (hex: string) => [1, 3, 5].map((offset) => parseInt(hex.slice(offset, offset + 2), 16)) as [number, number, number];
const near =
  (expected: string, tolerance = 6) =>
  (rgb: [number, number, number]) =>
    rgb.every((channel, index) => Math.abs(channel - (rgbOf(expected)[index] as number)) <= tolerance);
const padding = (format: PostFormat) => Math.round(Math.min(postFormats[format].width, postFormats[format].height) * 0.06);
const bottom = (format: PostFormat, share: number): Region => {
  const { width, height } = postFormats[format];
  return { left: 0, top: Math.round(height * (1 - share)), width, height: Math.round(height * share) };
};
const top = (format: PostFormat, share: number): Region => {
  const { width, height } = postFormats[format];
  return { left: 0, top: 0, width, height: Math.round(height * share) };
};

describe('composePostImage: size and artwork', () => {
  it.each(allPostFormats)('when the format is %s and the artwork has another aspect, then the artwork covers the whole image', async (format) => {
    const { png, notes } = await compose({ format, artwork: await solid(gray, 300, 500) });
    const metadata = await sharp(png).metadata();
    expect({ format: metadata.format, width: metadata.width, height: metadata.height }).toEqual({ format: 'png', ...postFormats[format] });
    const pixels = await pixelsOf(png);
    // No letterbox bars: the corners away from the title band are the artwork's colour.
    expect(pixelAt(pixels, 1, 1)).toEqual(rgbOf(gray));
    expect(pixelAt(pixels, pixels.width - 2, 1)).toEqual(rgbOf(gray));
    expect(notes).toEqual([]);
  });
});

describe('composePostImage: title', () => {
  it.each(allPostFormats)(
    'when the format is %s and the title is long, then the title changes the bottom and leaves the top three fifths untouched',
    async (format) => {
      const artwork = artworks[format];
      const bare = await pixelsOf(artwork);
      const { png, notes } = await compose({ format, artwork, title: longTitle, colors: navyKit });
      const composed = await pixelsOf(png);
      expect(meanDifference(bare, composed, top(format, 0.6))).toBe(0);
      expect(meanDifference(bare, composed, bottom(format, 0.2))).toBeGreaterThan(20);
      // Auto-sized: a 200-character title fills most of its 40%, not a thin strip.
      expect(meanDifference(bare, composed, { ...bottom(format, 0.4), height: Math.round(postFormats[format].height * 0.1) })).toBeGreaterThan(20);
      expect(notes).toEqual([]);
    },
  );

  it('when the brand has a primary colour, then the band is that colour', async () => {
    const pixels = await pixelsOf((await compose({ format: '1:1', colors: { primary: '#1e3a8a' } })).png);
    const [band, artwork] = [rgbOf('#1e3a8a'), rgbOf(gray)];
    const expected = band.map((channel, index) => Math.round(channel * 0.92 + (artwork[index] as number) * 0.08));
    pixelAt(pixels, 5, pixels.height - 5).forEach((channel, index) => expect(Math.abs(channel - (expected[index] as number))).toBeLessThanOrEqual(2));
  });

  it('when the brand has no colours, then a dark scrim sits under the title', async () => {
    const pixels = await pixelsOf((await compose({ format: '1:1' })).png);
    expect(Math.max(...pixelAt(pixels, 5, pixels.height - 5))).toBeLessThan(64);
    expect(pixelAt(pixels, 5, 5)).toEqual(rgbOf(gray));
  });

  it.each([
    ['a dark primary', '#1e3a8a', '#ffffff'],
    ['a light primary', '#fde68a', '#111827'],
    ['no colours', undefined, '#ffffff'],
  ])('when the band has %s, then the title is set in %s for contrast', async (_case, primary, textColour) => {
    const colors = primary ? { primary } : {};
    const pixels = await pixelsOf((await compose({ format: '1:1', colors })).png);
    const other = textColour === '#ffffff' ? '#111827' : '#ffffff';
    expect(countPixels(pixels, bottom('1:1', 0.4), near(textColour, 12))).toBeGreaterThan(1000);
    expect(countPixels(pixels, bottom('1:1', 0.4), near(other, 8))).toBe(0);
  });

  it('when the brand has an accent colour, then a thin accent line is drawn; without one, none', async () => {
    const lineArea = Math.round(1080 * 0.16) * Math.max(4, Math.round(1080 * 0.007));
    const withAccent = await pixelsOf((await compose({ format: '1:1', colors: navyKit })).png);
    expect(countPixels(withAccent, bottom('1:1', 0.4), near('#00ff00', 2))).toBe(lineArea);
    const withoutAccent = await pixelsOf((await compose({ format: '1:1', colors: { primary: '#1e3a8a' } })).png);
    expect(countPixels(withoutAccent, bottom('1:1', 0.4), near('#00ff00', 40))).toBe(0);
  });

  it('when the heading font is bundled, then it is used without a note', async () => {
    const playfair = await compose({ format: '1:1', fonts: { heading: 'playfair display' } });
    const inter = await compose({ format: '1:1', fonts: { heading: 'Inter' } });
    expect(playfair.notes).toEqual([]);
    expect(playfair.png.equals(inter.png)).toBe(false);
  });

  it('when the heading font is not bundled, then the title is set in Inter and a note says so', async () => {
    const substituted = await compose({ format: '1:1', fonts: { heading: 'Comic Sans' } });
    const inter = await compose({ format: '1:1', fonts: { heading: 'Inter' } });
    expect(substituted.notes).toEqual(['heading font "Comic Sans" is not bundled; used Inter']);
    expect(substituted.png.equals(inter.png)).toBe(true);
  });

  it('when the title looks like markup, then it is drawn literally', async () => {
    const tagged = await compose({ format: '1:1', title: '<b>Launch</b>' });
    const plain = await compose({ format: '1:1', title: 'Launch' });
    // The title is bold already: had <b> been read as markup, both images would be the same.
    expect(tagged.png.equals(plain.png)).toBe(false);
    expect(tagged.notes).toEqual([]);
  });

  it.each(['Fish & chips', 'a < b > c', `"Double" and 'single' quotes`, '<span foreground="red">', '&amp; &#x41; &bogus;', 'Line one\nline two\ttabbed\u0007'])(
    'when the title is %j, then it renders without error and draws text',
    async (title) => {
      const { png, notes } = await compose({ format: '1:1', title });
      const pixels = await pixelsOf(png);
      expect(countPixels(pixels, bottom('1:1', 0.4), near('#ffffff', 12))).toBeGreaterThan(500);
      expect(notes).toEqual([]);
    },
  );

  it('when the title has accents and an emoji, then the accents are drawn and the emoji is left out with a note', async () => {
    const mixed = await compose({ format: '1:1', title: 'Café ☕ <launch> & more' });
    expect(mixed.notes).toEqual(['the Inter font has no glyphs for "☕"; left out of the title']);
    expect(mixed.png.equals((await compose({ format: '1:1', title: 'Café <launch> & more' })).png)).toBe(true);
    expect(mixed.png.equals((await compose({ format: '1:1', title: 'Cafe <launch> & more' })).png)).toBe(false);
  });

  it('when the title is longer than 200 characters, then it is cut with a note', async () => {
    const { notes } = await compose({ format: '1:1', title: 'word '.repeat(60) });
    expect(notes).toEqual(['the title was cut to 200 characters']);
  });
});

describe('composePostImage: logo', () => {
  const red = '#ff0000';
  const logos: Array<[string, () => Promise<Buffer>]> = [
    ['PNG', () => solid(red, 200, 100)],
    ['JPEG', () => solid(red, 200, 100, 'jpeg')],
    ['WebP', () => solid(red, 200, 100, 'webp')],
    [
      'SVG',
      () => Promise.resolve(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><rect width="20" height="10" fill="${red}"/></svg>`)),
    ],
  ];

  it.each(allPostFormats.flatMap((format) => logos.map(([kind, make]) => [format, kind, make] as const)))(
    'when the format is %s and the logo is %s, then it is drawn top right at 15 percent of the width',
    async (format, _kind, make) => {
      const { png, notes } = await compose({ format, logo: await make() });
      const pixels = await pixelsOf(png);
      const { width } = postFormats[format];
      const row = padding(format) + 10;
      const logoWidth = countPixels(pixels, { left: 0, top: row, width, height: 1 }, near(red, 40));
      expect(Math.abs(logoWidth - Math.round(width * 0.15))).toBeLessThanOrEqual(2);
      expect(pixelAt(pixels, width - padding(format) - 5, row)).toSatisfy(near(red, 40));
      expect(pixelAt(pixels, width - padding(format) + 5, row)).toEqual(rgbOf(gray));
      expect(notes).toEqual([]);
    },
  );

  it.each([
    ['bytes that are no image', Buffer.from('not an image at all')],
    ['a truncated PNG', Buffer.from('89504e470d0a1a0a0000000d49484452000000100000001008060000001ff3ff61', 'hex')],
  ])('when the logo is %s, then it is left out with a note', async (_case, logo) => {
    const withBadLogo = await compose({ format: '1:1', logo });
    const withoutLogo = await compose({ format: '1:1', logo: null });
    expect(withBadLogo.notes).toEqual(['the logo could not be read as an image (PNG, JPEG, WebP or SVG); left out']);
    expect(withBadLogo.png.equals(withoutLogo.png)).toBe(true);
  });

  it('when the logo has more than 50 megapixels, then it is not decoded and is left out with a note naming its size', async () => {
    const withHugeLogo = await compose({ format: '1:1', logo: makeBlankPng(10000, 10000) });
    const withoutLogo = await compose({ format: '1:1', logo: null });
    expect(withHugeLogo.notes).toEqual(['the logo is 10000×10000 pixels (100 megapixels), over the limit of 50 megapixels; left out']);
    expect(withHugeLogo.png.equals(withoutLogo.png)).toBe(true);
  });

  it('when the brand kit, font and logo are all usable, then there are no notes', async () => {
    const { notes } = await compose({
      format: '9:16',
      artwork: artworks['9:16'],
      title: longTitle,
      colors: { primary: '#1e3a8a', secondary: '#f59e0b', accent: '#ef4444', neutral: '#f3f4f6' },
      fonts: { heading: 'Montserrat', body: 'Inter' },
      logo: await solid(red, 64, 64),
    });
    expect(notes).toEqual([]);
  });
});
