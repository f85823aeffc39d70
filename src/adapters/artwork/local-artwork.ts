import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { colorRoles } from '../database/brand-roles.ts';
import type { BrandColors } from '../database/entities/brand-kit.ts';
import { postFormats, type PostFormat } from './post-formats.ts';

// Placeholder post backgrounds drawn without any AI model: abstract SVG artwork whose style, shapes and (without a
// brand kit) colours all come from a PRNG seeded by the prompt and seed, so the same request always gives the same
// bytes and different prompts give visibly different pictures.

export type LocalArtworkInput = { prompt: string; seed: number; format: PostFormat; colors: BrandColors };

type Random = () => number;
type Hsl = { h: number; s: number; l: number };
type Palette = { background: Hsl; shapes: Hsl[] };
/** Layers, bottom to top: `soft` ones have no edges, `crisp` ones do, `light` shades everything below it. */
type Sketch = {
  width: number;
  height: number;
  random: Random;
  palette: Palette;
  defs: string[];
  soft: string[];
  crisp: string[];
  light: string[];
};

// Large gradients are the costly part of rasterising; edgeless layers are drawn at a quarter of the size and
// enlarged, which looks the same at a fraction of the cost.
const softScale = 4;

export async function renderLocalArtwork(input: LocalArtworkInput): Promise<Buffer> {
  const { width, height } = postFormats[input.format];
  const random = seededRandom(`${input.seed}\n${input.prompt}`);
  const palette = brandPalette(input.colors, random) ?? derivedPalette(random);
  const sketch: Sketch = { width, height, random, palette, defs: [], soft: [], crisp: [], light: [] };
  drawBackground(sketch);
  pick(random, styles)(sketch);
  drawLighting(sketch);
  const raw = { width, height, channels: 4 } as const;
  const [soft, light] = await Promise.all([enlarged(sketch, sketch.soft), enlarged(sketch, sketch.light)]);
  return (
    sharp(soft, { raw })
      .composite([{ input: svgDocument(sketch, sketch.crisp, 1) }, { input: light, raw }])
      .removeAlpha()
      // Smooth gradients compress poorly whatever the effort; a low level keeps encoding fast.
      .png({ compressionLevel: 3 })
      .toBuffer()
  );
}

/** Edgeless layers drawn small and enlarged as pixels (sharp would re-render an SVG at the full size instead). */
async function enlarged(sketch: Sketch, shapes: string[]): Promise<Buffer> {
  const small = await sharp(svgDocument(sketch, shapes, softScale))
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return sharp(small.data, { raw: { width: small.info.width, height: small.info.height, channels: 4 } })
    .resize(sketch.width, sketch.height, { kernel: 'linear' })
    .raw()
    .toBuffer();
}

function svgDocument(sketch: Sketch, shapes: string[], downscale: number): Buffer {
  const { width, height } = sketch;
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width / downscale}" height="${height / downscale}" viewBox="0 0 ${width} ${height}">` +
      `<defs>${sketch.defs.join('')}</defs>${shapes.join('')}</svg>`,
  );
}

/** sfc32 seeded from SHA-256: well distributed, and identical on every machine and in every process. */
function seededRandom(text: string): Random {
  const digest = createHash('sha256').update(text).digest();
  let [a, b, c, d] = [0, 4, 8, 12].map((offset) => digest.readUInt32LE(offset)) as [number, number, number, number];
  return () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}

function between(random: Random, min: number, max: number): number {
  return min + random() * (max - min);
}

function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

/** The brand's own colours, the primary (or first given) one as the background; undefined without any. */
function brandPalette(colors: BrandColors, random: Random): Palette | undefined {
  const given = colorRoles
    .map((role) => colors[role])
    .filter((hex): hex is string => hex !== undefined && /^#[0-9a-f]{6}$/i.test(hex))
    .map(hexToHsl);
  const [background, ...others] = given;
  if (!background) return undefined;
  // A kit with one or two colours still needs a few shape colours: take neighbours of the background's hue.
  while (others.length < 3) {
    const side = others.length % 2 ? -1 : 1;
    others.push({ h: background.h + side * between(random, 25, 60), s: background.s, l: clamp(background.l + between(random, -25, 25), 25, 80) });
  }
  return { background, shapes: others };
}

/** A colour scheme (analogous, complementary, triadic or split) around a hue drawn from the prompt. */
function derivedPalette(random: Random): Palette {
  const hue = between(random, 0, 360);
  const offsets = pick(random, [
    [-35, 35, 70],
    [180, 150, 20],
    [120, 240, 30],
    [150, 210, -30],
  ]);
  // Deep, vivid or pastel grounds; mid-lightness, mid-saturation grounds come out muddy (browns, greys), and so do
  // deep oranges and yellows, which get one of the other two.
  const deep = [
    [55, 75],
    [16, 26],
  ] as const;
  const others = [
    [
      [70, 85],
      [48, 56],
    ],
    [
      [45, 70],
      [86, 92],
    ],
  ] as const;
  const [saturation, lightness] = pick(random, hue > 15 && hue < 70 ? others : [deep, ...others]);
  return {
    background: { h: hue, s: between(random, saturation[0], saturation[1]), l: between(random, lightness[0], lightness[1]) },
    shapes: offsets.map((offset) => ({ h: hue + offset, s: between(random, 65, 95), l: between(random, 50, 70) })),
  };
}

function drawBackground(sketch: Sketch): void {
  const { background } = sketch.palette;
  // A gentle shift of the background colour keeps the brand colour dominant while giving the surface depth.
  const shade = { h: background.h + between(sketch.random, -12, 12), s: background.s, l: clamp(background.l + (background.l > 50 ? -12 : 12), 0, 100) };
  const id = addLinearGradient(sketch, between(sketch.random, 0, 360), [
    [0, background],
    [0.55, background],
    [1, shade],
  ]);
  sketch.soft.push(`<rect width="${sketch.width}" height="${sketch.height}" fill="url(#${id})"/>`);
}

function drawBlobs(sketch: Sketch): void {
  const { random, width, height } = sketch;
  const count = Math.floor(between(random, 4, 7));
  for (let index = 0; index < count; index++) {
    const radius = between(random, 0.2, 0.45) * Math.max(width, height);
    sketch.soft.push(softCircle(sketch, between(random, 0, width), between(random, 0, height), radius, shapeColor(sketch), between(random, 0.7, 1)));
  }
  // A few crisp discs in front of the haze, like bokeh, give the eye something in focus.
  const discs = Math.floor(between(random, 3, 7));
  for (let index = 0; index < discs; index++) {
    const radius = between(random, 0.02, 0.12) * Math.min(width, height);
    const [cx, cy] = [between(random, 0, width), between(random, 0, height)];
    sketch.crisp.push(element('circle', { cx, cy, r: radius, fill: hsl(shapeColor(sketch)), 'fill-opacity': between(random, 0.45, 0.9) }));
  }
}

function drawWaves(sketch: Sketch): void {
  const { random, width, height } = sketch;
  sketch.soft.push(softCircle(sketch, between(random, 0, width), between(random, 0, height * 0.4), Math.max(width, height) * 0.45, shapeColor(sketch), 0.7));
  const count = Math.floor(between(random, 3, 5));
  for (let index = 0; index < count; index++) {
    const baseline = height * (0.35 + (0.55 * (index + between(random, 0.2, 0.8))) / count);
    const amplitude = height * between(random, 0.03, 0.09);
    const periods = between(random, 0.6, 1.8);
    const phase = between(random, 0, Math.PI * 2);
    const points = Array.from({ length: 13 }, (_, step): [number, number] => {
      const x = (width * step) / 12;
      return [x, baseline + amplitude * Math.sin(phase + (periods * 2 * Math.PI * x) / width)];
    });
    const d = `${smoothLine(points)} L ${width} ${height} L 0 ${height} Z`;
    // The front wave is in the ground colour, which frames the picture and keeps the brand colour in sight.
    const front = index === count - 1;
    const fill = front
      ? { fill: hsl(groundShade(sketch)), 'fill-opacity': 0.95 }
      : { fill: hsl(shapeColor(sketch)), 'fill-opacity': between(random, 0.55, 0.9) };
    sketch.crisp.push(element('path', { d, ...fill }));
  }
}

function drawRings(sketch: Sketch): void {
  const { random, width, height } = sketch;
  const cx = between(random, 0.15, 0.85) * width;
  const cy = between(random, 0.1, 0.6) * height;
  sketch.soft.push(softCircle(sketch, cx, cy, Math.max(width, height) * 0.5, shapeColor(sketch), 0.75));
  const count = Math.floor(between(random, 5, 9));
  const spacing = Math.max(width, height) * between(random, 0.06, 0.1);
  for (let index = 1; index <= count; index++) {
    const stroke = { stroke: hsl(shapeColor(sketch)), 'stroke-width': spacing * between(random, 0.12, 0.45), 'stroke-opacity': between(random, 0.35, 0.85) };
    sketch.crisp.push(element('circle', { cx, cy, r: index * spacing, fill: 'none', ...stroke }));
  }
}

function drawStripes(sketch: Sketch): void {
  const { random, width, height } = sketch;
  sketch.soft.push(softCircle(sketch, between(random, 0, width), between(random, 0, height), Math.max(width, height) * 0.55, shapeColor(sketch), 0.8));
  const diagonal = Math.hypot(width, height);
  const angle = pick(random, [-1, 1]) * between(random, 20, 65);
  const stripes: string[] = [];
  for (let x = -diagonal / 2; x < diagonal / 2;) {
    const stripe = diagonal * between(random, 0.02, 0.09);
    if (random() < 0.55) {
      const fill = { fill: hsl(shapeColor(sketch)), 'fill-opacity': between(random, 0.25, 0.7) };
      stripes.push(element('rect', { x, y: -diagonal / 2, width: stripe, height: diagonal, ...fill }));
    }
    x += stripe + diagonal * between(random, 0.01, 0.05);
  }
  sketch.crisp.push(`<g transform="translate(${width / 2} ${height / 2}) rotate(${round(angle)})">${stripes.join('')}</g>`);
}

function drawHorizon(sketch: Sketch): void {
  const { random, width, height } = sketch;
  const horizon = height * between(random, 0.5, 0.7);
  const sun = Math.min(width, height) * between(random, 0.18, 0.3);
  const sunX = between(random, 0.2, 0.8) * width;
  const sunColor = shapeColor(sketch);
  sketch.soft.push(softCircle(sketch, sunX, horizon - sun * 0.3, sun * 2.2, sunColor, 0.6));
  sketch.crisp.push(element('circle', { cx: sunX, cy: horizon - sun * 0.3, r: sun, fill: hsl({ ...sunColor, l: clamp(sunColor.l + 15, 0, 92) }) }));
  // Hills in front of the sun, each nearer one a little darker; the nearest is a silhouette in the ground colour.
  for (let index = 0; index < 3; index++) {
    const top = horizon + index * height * 0.09;
    const points = Array.from({ length: 7 }, (_, step): [number, number] => [(width * step) / 6, top + between(random, -0.06, 0.04) * height]);
    const shape = shapeColor(sketch);
    const color = index === 2 ? groundShade(sketch) : { ...shape, l: clamp(shape.l - index * 10, 8, 90) };
    const d = `${smoothLine(points)} L ${width} ${height} L 0 ${height} Z`;
    sketch.crisp.push(element('path', { d, fill: hsl(color), 'fill-opacity': 0.92 }));
  }
}

const styles = [drawBlobs, drawWaves, drawRings, drawStripes, drawHorizon] as const;

/** A soft highlight and a darker rim, so flat shapes read as lit from one side. */
function drawLighting(sketch: Sketch): void {
  const { random, width, height } = sketch;
  sketch.light.push(
    softCircle(sketch, between(random, 0, width), between(random, 0, height * 0.5), Math.max(width, height) * 0.6, { h: 0, s: 0, l: 100 }, 0.22),
  );
  // The rim is a deep shade of the background's own hue: plain black greys out pastel grounds.
  const rim = hsl({ ...sketch.palette.background, l: 12 });
  const id = `g${sketch.defs.length}`;
  sketch.defs.push(
    `<radialGradient id="${id}" cx="50%" cy="50%" r="75%"><stop offset="0.55" stop-color="${rim}" stop-opacity="0"/>` +
      `<stop offset="1" stop-color="${rim}" stop-opacity="0.3"/></radialGradient>`,
  );
  sketch.light.push(`<rect width="${width}" height="${height}" fill="url(#${id})"/>`);
}

/** An SVG element; numbers are rounded so the markup stays short and identical wherever it is built. */
function element(name: string, attributes: Record<string, string | number>): string {
  const text = Object.entries(attributes).map(([key, value]) => `${key}="${typeof value === 'number' ? round(value) : value}"`);
  return `<${name} ${text.join(' ')}/>`;
}

function groundShade(sketch: Sketch): Hsl {
  const { background } = sketch.palette;
  return { ...background, l: clamp(background.l + (background.l > 50 ? -6 : 6), 0, 100) };
}

function shapeColor(sketch: Sketch): Hsl {
  const color = pick(sketch.random, sketch.palette.shapes);
  return { ...color, l: clamp(color.l + between(sketch.random, -8, 8), 0, 100) };
}

/** A circle fading from the colour at its centre to transparent at its edge: a blob without a costly blur. */
function softCircle(sketch: Sketch, cx: number, cy: number, radius: number, color: Hsl, opacity: number): string {
  const id = `g${sketch.defs.length}`;
  sketch.defs.push(
    `<radialGradient id="${id}"><stop offset="0" stop-color="${hsl(color)}" stop-opacity="${opacity.toFixed(2)}"/>` +
      `<stop offset="0.5" stop-color="${hsl(color)}" stop-opacity="${(opacity * 0.55).toFixed(2)}"/>` +
      `<stop offset="1" stop-color="${hsl(color)}" stop-opacity="0"/></radialGradient>`,
  );
  return `<circle cx="${round(cx)}" cy="${round(cy)}" r="${round(radius)}" fill="url(#${id})"/>`;
}

function addLinearGradient(sketch: Sketch, degrees: number, stops: Array<[number, Hsl]>): string {
  const id = `g${sketch.defs.length}`;
  const radians = (degrees * Math.PI) / 180;
  const [dx, dy] = [Math.cos(radians) / 2, Math.sin(radians) / 2];
  sketch.defs.push(
    `<linearGradient id="${id}" x1="${(0.5 - dx).toFixed(3)}" y1="${(0.5 - dy).toFixed(3)}" x2="${(0.5 + dx).toFixed(3)}" y2="${(0.5 + dy).toFixed(3)}">` +
      stops.map(([offset, color]) => `<stop offset="${offset}" stop-color="${hsl(color)}"/>`).join('') +
      '</linearGradient>',
  );
  return id;
}

/** A Catmull-Rom curve through the points, as SVG cubic Béziers. */
function smoothLine(points: Array<[number, number]>): string {
  const at = (index: number) => points[clamp(index, 0, points.length - 1)] as [number, number];
  let path = `M ${round(at(0)[0])} ${round(at(0)[1])}`;
  for (let index = 0; index < points.length - 1; index++) {
    const [p0, p1, p2, p3] = [at(index - 1), at(index), at(index + 1), at(index + 2)];
    path +=
      ` C ${round(p1[0] + (p2[0] - p0[0]) / 6)} ${round(p1[1] + (p2[1] - p0[1]) / 6)}` +
      ` ${round(p2[0] - (p3[0] - p1[0]) / 6)} ${round(p2[1] - (p3[1] - p1[1]) / 6)} ${round(p2[0])} ${round(p2[1])}`;
  }
  return path;
}

function hexToHsl(hex: string): Hsl {
  const [r, g, b] = [1, 3, 5].map((offset) => parseInt(hex.slice(offset, offset + 2), 16) / 255) as [number, number, number];
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const l = (max + min) / 2;
  const d = max - min;
  if (d === 0) return { h: 0, s: 0, l: l * 100 };
  const s = d / (1 - Math.abs(2 * l - 1));
  const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return { h: h * 60, s: s * 100, l: l * 100 };
}

function hsl({ h, s, l }: Hsl): string {
  return `hsl(${round(((h % 360) + 360) % 360)},${round(clamp(s, 0, 100))}%,${round(clamp(l, 0, 100))}%)`;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
