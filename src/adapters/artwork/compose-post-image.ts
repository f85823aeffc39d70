import sharp, { type OverlayOptions } from 'sharp';
import type { BrandColors, BrandFonts } from '../database/entities/brand-kit.ts';
import { charactersMissingFrom, resolveFont, type ResolvedFont } from './fonts.ts';
import { maxImagePixels, pixelLimitText, pixelsOverLimit } from './pixel-limit.ts';
import { postFormats, type PostFormat } from './post-formats.ts';

// The finished post image: the artwork as background, the title set on a band in the brand's colour and heading
// font, and the brand logo in the top-right corner. Anything that could not be done as asked (a font we do not
// bundle, characters it cannot draw, an unreadable logo) is done the next best way and told in `notes`.

export type ComposePostImageInput = {
  artwork: Buffer;
  format: PostFormat;
  title: string;
  colors: BrandColors;
  fonts: BrandFonts;
  logo?: Buffer | null;
};

export type ComposedPostImage = { png: Buffer; notes: string[] };

const maxTitleLength = 200;
const lightText = '#ffffff';
const darkText = '#111827';

type Layout = { width: number; height: number; padding: number };

export async function composePostImage(input: ComposePostImageInput): Promise<ComposedPostImage> {
  const layout = layoutOf(input.format);
  const notes: string[] = [];
  const layers = [...(await titleBand(layout, input, notes)), ...(await logoLayers(layout, input.logo, notes))];
  const png = await sharp(input.artwork)
    .resize(layout.width, layout.height, { fit: 'cover' })
    .flatten({ background: darkText })
    .composite(layers)
    .png()
    .toBuffer();
  return { png, notes };
}

export type TitleOverlay = { png: Buffer; top: number; notes: string[] };

/**
 * The title band alone, transparent around it, and where it goes from the top: what a video lays over its moving
 * artwork. Only the band's own rows, so that overlaying it costs little per frame. Null when there is no title to set.
 */
export async function composeTitleOverlay(input: Omit<ComposePostImageInput, 'artwork' | 'logo'>): Promise<TitleOverlay | null> {
  const layout = layoutOf(input.format);
  const notes: string[] = [];
  const layers = await titleBand(layout, input, notes);
  if (layers.length === 0) return null;
  const top = Math.min(...layers.map((layer) => layer.top ?? 0));
  const png = await sharp({ create: { width: layout.width, height: layout.height - top, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .composite(layers.map((layer) => ({ ...layer, top: (layer.top ?? 0) - top })))
    .png()
    .toBuffer();
  return { png, top, notes };
}

function layoutOf(format: PostFormat): Layout {
  const { width, height } = postFormats[format];
  return { width, height, padding: Math.round(Math.min(width, height) * 0.06) };
}

/** The title in the brand's heading font (or the bundled face standing in for it, said in `notes`). */
async function titleBand(layout: Layout, input: Pick<ComposePostImageInput, 'title' | 'colors' | 'fonts'>, notes: string[]): Promise<OverlayOptions[]> {
  const font = resolveFont(input.fonts.heading);
  if (font.substitutedFor) notes.push(`heading font "${font.substitutedFor}" is not bundled; used ${font.family}`);
  const title = await drawableTitle(input.title, font, notes);
  return title ? titleLayers(layout, title, font, input.colors) : [];
}

/** The title as the font can draw it: no control characters, at most 200 characters, no glyph-less characters. */
async function drawableTitle(raw: string, font: ResolvedFont, notes: string[]): Promise<string> {
  let title = raw
    .replace(/\r\n?/g, '\n')
    .replace(/[^\P{Cc}\n]/gu, ' ')
    .trim();
  const characters = Array.from(title);
  if (characters.length > maxTitleLength) {
    title = `${characters
      .slice(0, maxTitleLength - 1)
      .join('')
      .trimEnd()}…`;
    notes.push(`the title was cut to ${maxTitleLength} characters`);
  }
  const missing = [...new Set(await charactersMissingFrom(font.bold, title))];
  if (missing.length === 0) return title;
  notes.push(`the ${font.family} font has no glyphs for ${missing.map((text) => `"${text}"`).join(', ')}; left out of the title`);
  const segments = new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(title);
  return Array.from(segments, ({ segment }) => (missing.includes(segment) ? '' : segment))
    .join('')
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .trim();
}

/** The band (brand primary, or a dark scrim without one), the accent line and the title set on it. */
async function titleLayers(layout: Layout, title: string, font: ResolvedFont, colors: BrandColors): Promise<OverlayOptions[]> {
  const { width, height, padding } = layout;
  const band = validColor(colors.primary);
  const accent = validColor(colors.accent);
  const accentHeight = accent ? Math.max(4, Math.round(height * 0.007)) : 0;
  const accentSpace = accent ? accentHeight + Math.round(padding * 0.45) : 0;
  const text = await setTitle(title, font, {
    color: band && contrastRatio(band, darkText) > contrastRatio(band, lightText) ? darkText : lightText,
    width: width - 2 * padding,
    // The whole band, padding and accent included, stays within 40% of the height.
    maxHeight: Math.round(height * 0.4) - 2 * padding - accentSpace,
    maxPixelSize: Math.round(Math.min(width, height) * 0.085),
  });
  const bandHeight = text.height + 2 * padding + accentSpace;
  const bandTop = height - bandHeight;
  // Without a brand colour the scrim fades in above the band, so it darkens the artwork without a hard edge.
  const fade = band ? 0 : padding * 2;
  const surface = band
    ? `<rect width="${width}" height="${bandHeight}" fill="${band}" fill-opacity="0.92"/>`
    : `<linearGradient id="scrim" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#000" stop-opacity="0"/>` +
      `<stop offset="${(fade / (bandHeight + fade)).toFixed(3)}" stop-color="#000" stop-opacity="0.55"/>` +
      `<stop offset="1" stop-color="#000" stop-opacity="0.8"/></linearGradient>` +
      `<rect width="${width}" height="${bandHeight + fade}" fill="url(#scrim)"/>`;
  const line = accent ? `<rect x="${padding}" y="${fade + padding}" width="${Math.round(width * 0.16)}" height="${accentHeight}" fill="${accent}"/>` : '';
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${bandHeight + fade}">${surface}${line}</svg>`;
  return [
    { input: Buffer.from(svg), left: 0, top: bandTop - fade },
    { input: text.png, left: padding, top: bandTop + padding + accentSpace },
  ];
}

type TitleStyle = { color: string; width: number; maxHeight: number; maxPixelSize: number };

/**
 * The title wrapped to the width at the largest size that fits the height (Pango's autofit), but no larger than a
 * headline should be, so a two-word title does not fill the band.
 */
async function setTitle(title: string, font: ResolvedFont, style: TitleStyle): Promise<{ png: Buffer; height: number }> {
  const text = {
    text: `<span foreground="${style.color}" line_height="1.05">${escapeMarkup(title)}</span>`,
    // A 12 pt font at `dpi` is dpi / 6 pixels high, so the dpi is how the size is set.
    font: `${font.family} Bold 12`,
    fontfile: font.bold,
    width: style.width,
    wrap: 'word-char' as const,
    rgba: true,
  };
  const fitted = await sharp({ text: { ...text, height: style.maxHeight } })
    .png()
    .toBuffer({ resolveWithObject: true });
  const largest = style.maxPixelSize * 6;
  if ((fitted.info.textAutofitDpi ?? 0) <= largest) return { png: fitted.data, height: fitted.info.height };
  const capped = await sharp({ text: { ...text, dpi: largest } })
    .png()
    .toBuffer({ resolveWithObject: true });
  return { png: capped.data, height: capped.info.height };
}

/** The logo fitted into a square of 15% of the width, top right; a logo sharp cannot read, or too large to decode, is left out. */
async function logoLayers(layout: Layout, logo: Buffer | null | undefined, notes: string[]): Promise<OverlayOptions[]> {
  if (!logo) return [];
  const box = Math.round(layout.width * 0.15);
  try {
    const metadata = await sharp(logo, { limitInputPixels: false }).metadata();
    // Vector logos are rasterised at the size they are shown, not at their nominal size and then scaled.
    const density = metadata.format === 'svg' ? Math.min(100_000, Math.max(1, (72 * box) / Math.max(metadata.width, metadata.height))) : undefined;
    const over = density ? null : pixelsOverLimit(metadata.width, metadata.height);
    if (over) {
      notes.push(`the logo is ${over}, over the limit of ${pixelLimitText}; left out`);
      return [];
    }
    const fitted = await sharp(logo, { limitInputPixels: maxImagePixels, ...(density ? { density } : {}) })
      .resize(box, box, { fit: 'inside' })
      .png()
      .toBuffer({ resolveWithObject: true });
    return [{ input: fitted.data, left: layout.width - layout.padding - fitted.info.width, top: layout.padding }];
  } catch {
    notes.push('the logo could not be read as an image (PNG, JPEG, WebP or SVG); left out');
    return [];
  }
}

function escapeMarkup(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function validColor(hex: string | undefined): string | undefined {
  return hex !== undefined && /^#[0-9a-f]{6}$/i.test(hex) ? hex : undefined;
}

/** WCAG 2 contrast ratio of two `#rrggbb` colours. */
function contrastRatio(first: string, second: string): number {
  const [lighter, darker] = [relativeLuminance(first), relativeLuminance(second)].sort((a, b) => b - a) as [number, number];
  return (lighter + 0.05) / (darker + 0.05);
}

function relativeLuminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((offset) => {
    const channel = parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
