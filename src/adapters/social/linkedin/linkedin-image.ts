import sharp from 'sharp';
import type { SocialPost } from '../social-connector.ts';
import { SocialRejectedError } from '../social-connector.ts';
import { shortenText } from '../shorten-text.ts';

// The image of a post as LinkedIn takes it. The Images API
// (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/images-api) takes JPG, GIF and
// PNG of fewer than 36,152,320 pixels; LinkedIn's image posts take files up to 5 MB. A larger image is scaled down
// and re-encoded as JPEG, at lower and lower quality, rather than refused.

const maxImagePixels = 36_152_320;
export const maxImageBytes = 5 * 1024 * 1024;
/** The Posts API's limit on a media item's alt text. */
const maxAltTextChars = 4_086;
const jpegQualities = [90, 80, 70, 60, 50];

type Image = NonNullable<SocialPost['image']>;

export type LinkedInImage = { bytes: Buffer; contentType: 'image/png' | 'image/jpeg'; width: number; height: number; alt: string };

async function dimensionsOf(bytes: Buffer): Promise<{ width: number; height: number }> {
  try {
    const { width, height } = await sharp(bytes, { limitInputPixels: false }).metadata();
    if (width && height) return { width, height };
  } catch {
    // Unreadable, as below.
  }
  throw new SocialRejectedError('the image to post to LinkedIn could not be read');
}

/** The image as it will be uploaded: within LinkedIn's pixel and size limits, with its alt text cut to fit. */
export async function linkedInImageOf(image: Image): Promise<LinkedInImage> {
  const alt = shortenText(image.alt, { codePoints: maxAltTextChars });
  const { width, height } = await dimensionsOf(image.bytes);
  if (width * height <= maxImagePixels && image.bytes.length <= maxImageBytes)
    return { bytes: image.bytes, contentType: image.contentType, width, height, alt };

  const scale = Math.min(1, Math.sqrt(maxImagePixels / (width * height)));
  const size = { width: Math.max(1, Math.floor(width * scale)), height: Math.max(1, Math.floor(height * scale)) };
  const scaled = () => sharp(image.bytes, { limitInputPixels: false }).resize({ ...size, fit: 'fill' });
  if (image.contentType === 'image/png') {
    // Scaled down, a PNG may fit as a PNG (keeping its transparency).
    const png = await scaled().png().toBuffer();
    if (png.length <= maxImageBytes) return { bytes: png, contentType: 'image/png', ...size, alt };
  }
  for (const quality of jpegQualities) {
    // JPEG has no transparency: flatten onto white, as a viewer would show it.
    const jpeg = await scaled().flatten({ background: '#ffffff' }).jpeg({ quality }).toBuffer();
    if (jpeg.length <= maxImageBytes) return { bytes: jpeg, contentType: 'image/jpeg', ...size, alt };
  }
  throw new SocialRejectedError(`the image is larger than LinkedIn's ${maxImageBytes} bytes even as a JPEG at quality ${jpegQualities.at(-1)}`);
}
