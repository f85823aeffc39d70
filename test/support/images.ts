import { crc32, deflateSync } from 'node:zlib';
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

/**
 * A real, decodable PNG of any size that stays small on disk: 1-bit greyscale, every row blank, so deflate packs
 * 30000×30000 pixels into about 100 KB. For pixel-limit tests, without ever holding the decoded image.
 */
export function makeBlankPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(1, 8); // bit depth
  header.writeUInt8(0, 9); // greyscale
  // Each row: filter type 0, then one bit per pixel.
  const rows = deflateSync(Buffer.alloc((1 + Math.ceil(width / 8)) * height), { level: 9 });
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', rows), chunk('IEND', Buffer.alloc(0))]);
}
