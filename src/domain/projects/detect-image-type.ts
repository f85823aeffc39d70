import sharp from 'sharp';
import { AppError } from '../../errors/app-error.ts';

export type ImageType = { extension: 'jpg' | 'png' | 'webp'; contentType: string };

const accepted: Record<string, ImageType> = {
  jpeg: { extension: 'jpg', contentType: 'image/jpeg' },
  png: { extension: 'png', contentType: 'image/png' },
  webp: { extension: 'webp', contentType: 'image/webp' },
};

/**
 * The image type read from the bytes themselves; the file name and the declared content type are not trusted.
 * Anything that is not a readable JPEG, PNG or WebP image is refused with 415.
 */
export async function detectImageType(bytes: Buffer): Promise<ImageType> {
  const format = await sharp(bytes)
    .metadata()
    .then((metadata) => metadata.format as string)
    .catch(() => 'unreadable');
  const type = accepted[format];
  if (!type) {
    throw new AppError(
      'unsupported-media-type',
      `The file must be a JPEG, PNG or WebP image; its content is ${format === 'unreadable' ? 'not an image we can read' : format}.`,
    );
  }
  return type;
}
