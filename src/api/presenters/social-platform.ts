import type { SocialPlatformEntry } from '../../domain/social-platforms/list-social-platforms.ts';
import type { Schemas } from '../schemas.ts';

export function presentSocialPlatform(entry: SocialPlatformEntry): Schemas['SocialPlatformEntry'] {
  return {
    platform: entry.platform,
    auth: entry.auth,
    configured: entry.configured,
    text: {
      max: entry.text.max,
      unit: entry.text.unit,
      ...(entry.text.linkLength === undefined ? {} : { linkLength: entry.text.linkLength }),
      ...(entry.text.maxLinks === undefined ? {} : { maxLinks: entry.text.maxLinks }),
    },
    images: { types: [...entry.images.types], maxBytes: entry.images.maxBytes, maxCount: entry.images.maxCount, altText: entry.images.altText },
    video: entry.video && {
      types: [...entry.video.types],
      maxBytes: entry.video.maxBytes,
      ...(entry.video.minBytes === undefined ? {} : { minBytes: entry.video.minBytes }),
      ...(entry.video.minDurationMs === undefined ? {} : { minDurationMs: entry.video.minDurationMs }),
      ...(entry.video.maxDurationMs === undefined ? {} : { maxDurationMs: entry.video.maxDurationMs }),
      ...(entry.video.aspectRatio ? { aspectRatio: { ...entry.video.aspectRatio } } : {}),
    },
    threads: entry.threads,
    destination: entry.destination,
    settings: [...(entry.settings ?? [])],
    retriesNeverDuplicate: { ...entry.retriesNeverDuplicate },
  };
}
