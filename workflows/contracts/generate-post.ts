import type { PostFormat } from '../../src/adapters/artwork/post-formats.ts';

// What starting generatePost takes and what it answers: imported by its callers and by the workflow, and importing
// nothing at run time (see README, "Changing a workflow").

export type GeneratePostInput = {
  postId: string;
  generationId: string;
  prompt: string;
  promptWasNew: boolean;
  format: PostFormat;
  seed: number;
  /** The provider of whoever started the run is the local renderer (see requestGeneration). */
  imageRunsLocally: boolean;
};

/** The post's new version and the sentence the client reads about it. */
export type GenerationResult = { versionNumber: number; respond: string };
