import sharp from 'sharp';

/** A small real image in the given format, for upload tests. */
export function makeImage(format: 'png' | 'jpeg' | 'webp' | 'gif', colour = '#3366ff', size = 64): Promise<Buffer> {
  return sharp({ create: { width: size, height: size, channels: 3, background: colour } })
    .toFormat(format)
    .toBuffer();
}
