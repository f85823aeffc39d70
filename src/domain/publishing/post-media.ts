import { Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PublishTarget } from '../../adapters/database/entities/publish-target.ts';
import { VideoJob } from '../../adapters/database/entities/video-job.ts';
import { postFormats } from '../../adapters/artwork/post-formats.ts';
import type { PlatformDeclaration, VideoRules } from '../../adapters/social/platform-declaration.ts';
import type { OutgoingVideo, SocialVideo } from '../../adapters/social/social-connector.ts';
import { videoSeconds } from '../../adapters/video-encoding/encode-post-video.ts';
import type { Deps } from '../deps.ts';
import { latestVideoJob } from '../video/latest-video-job.ts';

// What goes with a post's text to one connection: its image or its video. The publish and its dry run decide it
// with the same function, from what the client asked (`media`, null: let the post and the platform decide), what
// the platform takes (its declaration's `video`) and whether the post has a finished video.

export type RequestedMedia = 'image' | 'video' | null;

/** The post's newest finished video, as it is stored: sent as it is, never re-encoded. */
export type PostVideo = OutgoingVideo & { key: string };

export type MediaChoice =
  | { media: 'image' }
  | { media: 'video'; video: PostVideo }
  /** The client asked for the video and it cannot go: why, in a sentence, and the dry run's code for it. */
  | { media: 'refused'; code: 'video_not_ready' | 'video_unsupported' | 'video_required'; reason: string };

/** What the platform takes: its images (none, where `maxCount` is 0: YouTube) and its video (null: none). */
type MediaRules = Pick<PlatformDeclaration, 'images' | 'video'>;

/** Whether a video of the post is being made (queued or running): the dry run says a publication now would not send it. */
export async function videoInTheMaking(em: EntityManager, postId: string): Promise<boolean> {
  return (await em.count(VideoJob, { postId, status: { $in: ['queued', 'running'] } })) > 0;
}

/** The post's newest finished video with its facts, or null. */
export async function postVideoOf(deps: Pick<Deps, 'storage'>, em: EntityManager, postId: string): Promise<PostVideo | null> {
  return videoOfJob(deps, await latestVideoJob(em, postId));
}

/**
 * What one target sends with its text, decided at its first attempt and kept on the target (`media`, `videoKey`),
 * so every later attempt (after a retry, or a wait while the platform processes the video) sends the same: a video
 * finished meanwhile does not replace the one being uploaded, nor the image one sent before.
 */
export async function targetMediaOf(deps: Pick<Deps, 'storage'>, em: EntityManager, target: PublishTarget, rules: MediaRules): Promise<MediaChoice> {
  if (target.videoKey) {
    const video = await videoOfJob(deps, await em.findOne(VideoJob, { videoKey: target.videoKey }));
    return video ? { media: 'video', video } : { media: 'refused', code: 'video_not_ready', reason: "The post's video was deleted before it was sent." };
  }
  // Only a choice that could be the video reads the post's video (and, for an old job, storage).
  const requested = target.media ?? null;
  const couldBeVideo = requested !== 'image' && rules.video !== null;
  const choice = chooseMedia(requested, rules, couldBeVideo ? await postVideoOf(deps, em, target.postId) : null);
  if (choice.media === 'refused') return choice;
  target.media = choice.media;
  target.videoKey = choice.media === 'video' ? choice.video.key : null;
  await em.flush();
  return choice;
}

async function videoOfJob(deps: Pick<Deps, 'storage'>, job: VideoJob | null): Promise<PostVideo | null> {
  if (!job?.videoKey) return null;
  const { width, height } = postFormats[job.format];
  const bytes = job.videoBytes ?? (await storedSize(deps, job.videoKey));
  if (bytes === undefined) return null;
  return { key: job.videoKey, type: 'video/mp4', bytes, durationMs: job.durationMs ?? videoSeconds * 1000, width, height };
}

async function storedSize(deps: Pick<Deps, 'storage'>, key: string): Promise<number | undefined> {
  const stored = await deps.storage.get(key);
  stored?.body.destroy();
  return stored?.size;
}

/**
 * What goes with the text: the video where asked for (or, unasked, where there is one and the platform takes it),
 * else the image; on a platform that takes only video (YouTube), the video or nothing.
 */
export function chooseMedia(requested: RequestedMedia, rules: MediaRules, video: PostVideo | null): MediaChoice {
  const videoOnly = rules.images.maxCount === 0;
  if (requested === 'image' && !videoOnly) return { media: 'image' };
  if (requested !== 'image' && rules.video && video) return { media: 'video', video };
  if (videoOnly) {
    const reason =
      requested === 'image'
        ? "The platform takes only video: the post's image cannot be sent there."
        : 'The platform takes only video, and the post has no finished video: make one (Video, in the dashboard) and publish again.';
    return { media: 'refused', code: 'video_required', reason };
  }
  if (requested === null) return { media: 'image' };
  if (!rules.video) return { media: 'refused', code: 'video_unsupported', reason: 'The platform takes no video (or this service does not send it there yet).' };
  return { media: 'refused', code: 'video_not_ready', reason: 'The post has no finished video: make one (Video, in the dashboard) and publish again.' };
}

/** Why the platform would refuse the video as it is (each a dry-run problem), or none. */
export function videoProblemsOf(rules: VideoRules, video: OutgoingVideo): Array<{ code: VideoProblemCode; message: string }> {
  const problems: Array<{ code: VideoProblemCode; message: string }> = [];
  if (video.bytes > rules.maxBytes) {
    problems.push({
      code: 'video_too_large',
      message: `The video is ${video.bytes} bytes, more than the platform's ${rules.maxBytes}: publishing would fail.`,
    });
  }
  if (rules.minBytes !== undefined && video.bytes < rules.minBytes) {
    problems.push({
      code: 'video_too_small',
      message: `The video is ${video.bytes} bytes, fewer than the platform's ${rules.minBytes}: publishing would fail.`,
    });
  }
  if (rules.maxDurationMs !== undefined && video.durationMs > rules.maxDurationMs) {
    const message = `The video lasts ${seconds(video.durationMs)}, longer than the platform's ${seconds(rules.maxDurationMs)}: publishing would fail.`;
    problems.push({ code: 'video_too_long', message });
  }
  if (rules.minDurationMs !== undefined && video.durationMs < rules.minDurationMs) {
    const message = `The video lasts ${seconds(video.durationMs)}, shorter than the platform's ${seconds(rules.minDurationMs)}: publishing would fail.`;
    problems.push({ code: 'video_too_short', message });
  }
  const ratio = video.width / video.height;
  if (rules.aspectRatio && (ratio < rules.aspectRatio.min || ratio > rules.aspectRatio.max)) {
    const { min, max } = rules.aspectRatio;
    const message = `The video is ${video.width}×${video.height} (${ratio.toFixed(3)}); the platform takes shapes from ${min} to ${max} (width ÷ height): publishing would fail.`;
    problems.push({ code: 'aspect_ratio_unsupported', message });
  }
  return problems;
}

type VideoProblemCode = 'video_too_large' | 'video_too_small' | 'video_too_long' | 'video_too_short' | 'aspect_ratio_unsupported';

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/**
 * The video as a connector gets it: each `open` streams it from storage as the request reads it (never held whole);
 * a video deleted meanwhile fails the stream, and the request with it.
 */
export function socialVideoOf(deps: Pick<Deps, 'storage'>, { key, ...facts }: PostVideo, alt: string, url: () => Promise<string>): SocialVideo {
  return { ...facts, alt, url, open: () => Readable.from(storedBytes(deps, key)) };
}

async function* storedBytes(deps: Pick<Deps, 'storage'>, key: string): AsyncGenerator<Buffer> {
  const stored = await deps.storage.get(key);
  if (!stored) throw new Error("The post's video was deleted while it was being sent");
  yield* stored.body as AsyncIterable<Buffer>;
}
