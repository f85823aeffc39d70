import type { ConnectionPreview } from '../../domain/publishing/preview-social-publication.ts';
import type { Schemas } from '../schemas.ts';

export function presentConnectionPreview(preview: ConnectionPreview): Schemas['PublishPreview'] {
  return {
    connectionId: preview.connectionId,
    platform: preview.platform,
    text: preview.text,
    count: preview.count,
    media: preview.media,
    video: preview.video && {
      type: preview.video.type,
      bytes: preview.video.bytes,
      durationMs: preview.video.durationMs,
      width: preview.video.width,
      height: preview.video.height,
    },
    image: preview.image && { type: preview.image.type, bytes: preview.image.bytes, width: preview.image.width, height: preview.image.height },
    parts: preview.parts.map(({ text, count }) => ({ text, count })),
    limits: preview.limits.map(({ what, used, limit }) => ({ what, used, limit })),
    facts: preview.facts.map(({ what, value }) => ({ what, value })),
    problems: preview.problems.map(({ code, message }) => ({ code, message })),
  };
}
