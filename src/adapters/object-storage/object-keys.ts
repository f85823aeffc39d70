import { newId } from '../database/new-id.ts';

// Where things live in object storage. Keys never reuse a name, so a replaced object can be deleted later without
// racing a reader of its successor, and caches never serve stale bytes.
export const objectKeys = {
  projectCover: (workspaceId: string, projectId: string, extension: string) => `workspaces/${workspaceId}/projects/${projectId}/cover-${newId()}.${extension}`,
  /** One per generation, so a retried activity overwrites its own object. */
  postArtwork: (workspaceId: string, postId: string, generationId: string) => `workspaces/${workspaceId}/posts/${postId}/artwork-${generationId}.png`,
  /** One per render, for the same reason. */
  postRender: (workspaceId: string, postId: string, renderId: string) => `workspaces/${workspaceId}/posts/${postId}/render-${renderId}.png`,
  /** One per video job, for the same reason. */
  postVideo: (workspaceId: string, postId: string, jobId: string) => `workspaces/${workspaceId}/posts/${postId}/video-${jobId}.mp4`,
  /** A copy of an image made for a platform that fetches it (Instagram's JPEG), one per publish attempt, kept a day. */
  platformCopy: (workspaceId: string, postId: string, attemptId: string) => `workspaces/${workspaceId}/posts/${postId}/copy-${attemptId}.jpg`,
} as const;
