import type { Activities } from '../../activities/index.ts';

// What starting renderPost takes and answers: importing nothing of ours at run time.

export type RenderPostInput = { postId: string; renderId: string };
/** The post's new image and version, as the save wrote them. */
export type RenderResult = Awaited<ReturnType<Activities['saveRenderedImage']>>;
