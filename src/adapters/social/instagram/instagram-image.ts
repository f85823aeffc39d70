import sharp from 'sharp';
import { SocialRejectedError } from '../social-connector.ts';

// Instagram's image rules (https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media#image-specifications):
// JPEG only, at most 8 MB, an aspect ratio between 4:5 and 1.91:1, 320 to 1440 pixels wide (Instagram scales
// others). A post's image is sent as Instagram takes it rather than refused: a PNG becomes a JPEG, and an image
// narrower than 4:5 (a 9:16 post's) or wider than 1.91:1 is padded to the nearest shape Instagram takes with its own
// dominant colour, whole, never cropped. The dry run shows the image as it would be sent.

// "8 MB", read as decimal megabytes, the stricter reading.
export const instagramMaxImageBytes = 8_000_000;
const narrowest = 4 / 5;
const widest = 1.91;
const maxWidth = 1440;
// A padded image is flattened onto one colour; quality drops only should a JPEG still be over the limit.
const qualities = [90, 80, 70, 60];

export type InstagramImage = { bytes: Buffer; width: number; height: number };

type Layout = { width: number; height: number; padX: number; padY: number };

/** The scaled image and the canvas around it: at most 1440 wide, its shape within Instagram's. */
function layoutOf(width: number, height: number): Layout {
  const ratio = width / height;
  if (ratio < narrowest) {
    const scaledHeight = Math.min(height, Math.floor(maxWidth / narrowest));
    const scaledWidth = Math.max(1, Math.round((width * scaledHeight) / height));
    return { width: scaledWidth, height: scaledHeight, padX: Math.ceil(scaledHeight * narrowest) - scaledWidth, padY: 0 };
  }
  const scaledWidth = Math.min(width, maxWidth);
  const scaledHeight = Math.max(1, Math.round((height * scaledWidth) / width));
  // Rounded up, so the padded shape is never wider than 1.91:1.
  return { width: scaledWidth, height: scaledHeight, padX: 0, padY: ratio > widest ? Math.ceil(scaledWidth / widest) - scaledHeight : 0 };
}

/** The image as Instagram is sent it: a JPEG of Instagram's shape and size. */
export async function instagramImageOf(bytes: Buffer): Promise<InstagramImage> {
  const metadata = await sharp(bytes)
    .metadata()
    .catch(() => undefined);
  if (!metadata?.width || !metadata.height) throw new SocialRejectedError('the image to post to Instagram could not be read');
  const layout = layoutOf(metadata.width, metadata.height);
  const { dominant } = await sharp(bytes).stats();
  const background = { r: dominant.r, g: dominant.g, b: dominant.b };
  const padded = sharp(bytes)
    .resize(layout.width, layout.height)
    .extend({
      left: Math.floor(layout.padX / 2),
      right: Math.ceil(layout.padX / 2),
      top: Math.floor(layout.padY / 2),
      bottom: Math.ceil(layout.padY / 2),
      background,
    })
    .flatten({ background })
    .toColourspace('srgb');
  const raw = await padded.raw().toBuffer({ resolveWithObject: true });
  let jpeg = Buffer.alloc(0);
  for (const quality of qualities) {
    jpeg = await sharp(raw.data, { raw: { width: raw.info.width, height: raw.info.height, channels: raw.info.channels } })
      .jpeg({ quality })
      .toBuffer();
    if (jpeg.length <= instagramMaxImageBytes) break;
  }
  return { bytes: jpeg, width: raw.info.width, height: raw.info.height };
}
