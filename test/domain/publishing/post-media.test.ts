import { describe, expect, it } from 'vitest';
import type { PlatformDeclaration, VideoRules } from '../../../src/adapters/social/platform-declaration.ts';
import { chooseMedia, videoProblemsOf, type PostVideo } from '../../../src/domain/publishing/post-media.ts';

// Which of a post's image and video goes to a platform, and what a platform's video rules say of the video: the
// choice and the checks the publish and its dry run share.

const video: PostVideo = { key: 'workspaces/w/posts/p/video-j.mp4', type: 'video/mp4', bytes: 3_000_000, durationMs: 6_000, width: 1080, height: 1920 };
const videoRules: VideoRules = { types: ['video/mp4'], maxBytes: 10 * 1024 * 1024 };
const images: PlatformDeclaration['images'] = { types: ['image/png'], maxBytes: 1_000_000, maxCount: 1, altText: false };
const takesVideo = { images, video: videoRules };
const noVideo = { images, video: null };
// YouTube: video only.
const onlyVideo = { images: { ...images, types: [], maxCount: 0 }, video: videoRules };

describe('chooseMedia', () => {
  it('when nothing is asked, then the video goes where the platform takes it and there is one, else the image', () => {
    expect(chooseMedia(null, takesVideo, video)).toEqual({ media: 'video', video });
    expect(chooseMedia(null, noVideo, video)).toEqual({ media: 'image' });
    expect(chooseMedia(null, takesVideo, null)).toEqual({ media: 'image' });
  });

  it('when the image is asked, then it goes even where the video could', () => {
    expect(chooseMedia('image', takesVideo, video)).toEqual({ media: 'image' });
  });

  it('when the video is asked and cannot go, then it is refused, saying whether the platform or the post lacks it', () => {
    expect(chooseMedia('video', noVideo, video)).toMatchObject({ media: 'refused', code: 'video_unsupported' });
    expect(chooseMedia('video', takesVideo, null)).toMatchObject({ media: 'refused', code: 'video_not_ready' });
    expect(chooseMedia('video', takesVideo, video)).toEqual({ media: 'video', video });
  });

  it('when the platform takes only video, then the video goes, and without one, or with the image asked, nothing can go', () => {
    expect(chooseMedia(null, onlyVideo, video)).toEqual({ media: 'video', video });
    expect(chooseMedia(null, onlyVideo, null)).toMatchObject({
      media: 'refused',
      code: 'video_required',
      reason: expect.stringContaining('no finished video'),
    });
    expect(chooseMedia('image', onlyVideo, video)).toMatchObject({ media: 'refused', code: 'video_required', reason: expect.stringContaining('image cannot') });
  });
});

describe('videoProblemsOf', () => {
  it('when the video fits every rule, then there is no problem', () => {
    expect(videoProblemsOf({ ...videoRules, minDurationMs: 500, maxDurationMs: 140_000, aspectRatio: { min: 1 / 3, max: 3 } }, video)).toEqual([]);
  });

  it('when the video is over each limit, then each is a problem in words, with the figures', () => {
    const rules: VideoRules = { types: ['video/mp4'], maxBytes: 2_000_000, maxDurationMs: 3_000, aspectRatio: { min: 0.8, max: 1.91 } };
    expect(videoProblemsOf(rules, video)).toEqual([
      { code: 'video_too_large', message: "The video is 3000000 bytes, more than the platform's 2000000: publishing would fail." },
      { code: 'video_too_long', message: "The video lasts 6 s, longer than the platform's 3 s: publishing would fail." },
      {
        code: 'aspect_ratio_unsupported',
        message: 'The video is 1080×1920 (0.563); the platform takes shapes from 0.8 to 1.91 (width ÷ height): publishing would fail.',
      },
    ]);
    expect(videoProblemsOf({ ...videoRules, minDurationMs: 10_000 }, video)).toEqual([
      { code: 'video_too_short', message: "The video lasts 6 s, shorter than the platform's 10 s: publishing would fail." },
    ]);
    expect(videoProblemsOf({ ...videoRules, minBytes: 4_000_000 }, video)).toEqual([
      { code: 'video_too_small', message: "The video is 3000000 bytes, fewer than the platform's 4000000: publishing would fail." },
    ]);
  });
});
