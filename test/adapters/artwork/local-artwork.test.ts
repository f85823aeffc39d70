import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { BrandColors } from '../../../src/adapters/database/entities/brand-kit.ts';
import { renderLocalArtwork } from '../../../src/adapters/artwork/local-artwork.ts';
import { postFormats, type PostFormat } from '../../../src/adapters/artwork/post-formats.ts';

const brandKit = { primary: '#1e3a8a', secondary: '#f59e0b', accent: '#ef4444', neutral: '#f3f4f6' } satisfies BrandColors;
const prompts = [
  'A cosy autumn coffee shop',
  'Summer sale on surfboards',
  'Quarterly fintech report',
  'Yoga retreat',
  'Night market food',
  'Launch of our new app',
];

/** The image shrunk to a fixed size, as RGB bytes: enough to compare pictures, fast to scan. */
async function thumbnail(png: Buffer): Promise<Buffer> {
  return sharp(png).resize(256, 256, { fit: 'fill' }).removeAlpha().raw().toBuffer();
}

function meanDifference(first: Buffer, second: Buffer): number {
  let total = 0;
  for (let index = 0; index < first.length; index++) total += Math.abs((first[index] as number) - (second[index] as number));
  return total / first.length;
}

/** The share of pixels within a small distance of the colour. */
function shareNear(pixels: Buffer, hex: string): number {
  const [r, g, b] = [1, 3, 5].map((offset) => parseInt(hex.slice(offset, offset + 2), 16)) as [number, number, number];
  let near = 0;
  for (let index = 0; index < pixels.length; index += 3) {
    if (Math.hypot((pixels[index] as number) - r, (pixels[index + 1] as number) - g, (pixels[index + 2] as number) - b) < 48) near++;
  }
  return near / (pixels.length / 3);
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('renderLocalArtwork', () => {
  it.each(Object.entries(postFormats))('when the format is %s, then it is an opaque PNG of exactly %o', async (format, size) => {
    const png = await renderLocalArtwork({ prompt: 'Spring launch', seed: 1, format: format as PostFormat, colors: {} });
    const metadata = await sharp(png).metadata();
    expect({ format: metadata.format, width: metadata.width, height: metadata.height, hasAlpha: metadata.hasAlpha }).toEqual({
      format: 'png',
      ...size,
      hasAlpha: false,
    });
  });

  it('when the same request is rendered twice, then the bytes are equal', async () => {
    const request = { prompt: 'Spring launch', seed: 42, format: '16:9' as const, colors: brandKit };
    expect((await renderLocalArtwork(request)).equals(await renderLocalArtwork(request))).toBe(true);
  });

  it('when the same request is rendered in another process, then the bytes are equal', async () => {
    const request = { prompt: 'Spring launch ☕', seed: 7, format: '1:1' as const, colors: {} };
    const module = new URL('../../../src/adapters/artwork/local-artwork.ts', import.meta.url).href;
    const script =
      `const { renderLocalArtwork } = await import(${JSON.stringify(module)});` +
      `const png = await renderLocalArtwork(${JSON.stringify(request)});` +
      `process.stdout.write((await import('node:crypto')).createHash('sha256').update(png).digest('hex'));`;
    const child = await promisify(execFile)(process.execPath, ['--input-type=module', '--eval', script]);
    expect(child.stdout).toBe(sha256(await renderLocalArtwork(request)));
  });

  it('when the prompts differ, then the pictures differ visibly, with and without brand colours', async () => {
    for (const colors of [{}, brandKit]) {
      const pictures = await Promise.all(prompts.map(async (prompt) => thumbnail(await renderLocalArtwork({ prompt, seed: 1, format: '1:1', colors }))));
      for (let index = 1; index < pictures.length; index++) {
        expect(meanDifference(pictures[index - 1] as Buffer, pictures[index] as Buffer)).toBeGreaterThan(12);
      }
    }
  });

  it('when only the seed differs, then the picture differs', async () => {
    const [first, second] = await Promise.all(
      [1, 2].map(async (seed) => thumbnail(await renderLocalArtwork({ prompt: 'Spring launch', seed, format: '9:16', colors: brandKit }))),
    );
    expect(meanDifference(first as Buffer, second as Buffer)).toBeGreaterThan(12);
  });

  it('when brand colours are given, then the primary colour covers a good part of every picture', async () => {
    for (const colors of [brandKit, { primary: '#10b981' }, { secondary: '#db2777', primary: '#fce7f3' }]) {
      for (const prompt of prompts) {
        const pixels = await thumbnail(await renderLocalArtwork({ prompt, seed: 1, format: '1:1', colors }));
        expect(shareNear(pixels, colors.primary), `${prompt} with ${colors.primary}`).toBeGreaterThan(0.1);
      }
    }
  });

  it('when no brand colours are given, then the palette comes from the prompt', async () => {
    const means = await Promise.all(
      prompts.map(async (prompt) => {
        const pixels = await thumbnail(await renderLocalArtwork({ prompt, seed: 1, format: '1:1', colors: {} }));
        const { channels } = await sharp(pixels, { raw: { width: 256, height: 256, channels: 3 } }).stats();
        return channels.map((channel) => Math.round(channel.mean / 16)).join(',');
      }),
    );
    expect(new Set(means).size).toBeGreaterThan(prompts.length / 2);
  });
});
