import sharp from 'sharp';

/** A small real image in the given format, for upload tests. */
export function makeImage(format: 'png' | 'jpeg' | 'webp' | 'gif', colour = '#3366ff', size = 64): Promise<Buffer> {
  return sharp({ create: { width: size, height: size, channels: 3, background: colour } })
    .toFormat(format)
    .toBuffer();
}

/** Fetches an image URL and reads its format and size. */
export async function fetchImage(url: string): Promise<{ bytes: Buffer; format: string | undefined; width: number | undefined; height: number | undefined }> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
  const bytes = Buffer.from(await response.arrayBuffer());
  const { format, width, height } = await sharp(bytes).metadata();
  return { bytes, format, width, height };
}
