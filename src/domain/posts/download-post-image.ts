import { buffer } from 'node:stream/consumers';
import sharp from 'sharp';
import { AppError } from '../../common/errors/app-error.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { readPost } from './read-post.ts';

export type DownloadFormat = 'png' | 'jpg';
export type PostDownload = { bytes: Buffer; contentType: string; fileName: string };

/** The post's current image as a PNG or JPEG file named after the post's title. */
export async function downloadPostImage(deps: Deps, caller: Caller, postId: string, format: DownloadFormat): Promise<PostDownload> {
  const post = await readPost(deps.orm.em.fork(), caller.workspaceId, postId);
  const stored = post.imageKey ? await deps.storage.get(post.imageKey) : null;
  if (!stored) throw new AppError('conflict', `Post ${post.id} has no image yet; generate it first.`);
  const image = sharp(await buffer(stored.body));
  const bytes =
    format === 'jpg' ? await image.flatten({ background: '#ffffff' }).jpeg({ quality: 90, mozjpeg: true }).toBuffer() : await image.png().toBuffer();
  return { bytes, contentType: format === 'jpg' ? 'image/jpeg' : 'image/png', fileName: `${slug(post.title)}.${format}` };
}

function slug(title: string): string {
  const ascii = title
    .normalize('NFKD')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '-');
  return ascii.slice(0, 80) || 'post';
}
