// What starting renderPost takes and answers: importing nothing of ours at run time.

export type RenderPostInput = { postId: string; renderId: string };
/** The post's new version and what the render noted (e.g. a brand logo it could not fetch). */
export type RenderResult = { versionNumber: number; notes: string[] };
