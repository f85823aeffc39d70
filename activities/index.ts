import type { Database } from '../src/data/orm.ts';
import type { ImageProvider } from '../src/generation/image-provider.ts';
import type { Logger } from '../src/logger.ts';
import type { ObjectStorage } from '../src/storage/object-storage.ts';
import { deleteOrphanedObjects, type DeleteOrphansInput } from './delete-orphaned-objects.ts';
import { generatePostImage, type GeneratePostImageInput } from './generate-post-image.ts';
import { markPostFailed, type MarkPostFailedInput } from './mark-post-failed.ts';
import { renderPostImage, type RenderPostImageInput } from './render-post-image.ts';
import { saveGeneratedImage, type SaveGeneratedImageInput } from './save-generated-image.ts';
import { saveRenderedImage, type SaveRenderedImageInput } from './save-rendered-image.ts';

export type ActivityDeps = {
  orm: Database;
  storage: ObjectStorage;
  logger: Logger;
  images: ImageProvider;
  logoFetch: { allowPrivateNetworks: boolean };
};

/** The worker injects real clients; tests inject what they need (e.g. a storage that fails on purpose). */
export function createActivities(deps: ActivityDeps) {
  return {
    deleteOrphanedObjects: (input: DeleteOrphansInput) => deleteOrphanedObjects(deps, input),
    generatePostImage: (input: GeneratePostImageInput) => generatePostImage(deps, input),
    saveGeneratedImage: (input: SaveGeneratedImageInput) => saveGeneratedImage(deps, input),
    markPostFailed: (input: MarkPostFailedInput) => markPostFailed(deps, input),
    renderPostImage: (input: RenderPostImageInput) => renderPostImage(deps, input),
    saveRenderedImage: (input: SaveRenderedImageInput) => saveRenderedImage(deps, input),
  };
}

export type Activities = ReturnType<typeof createActivities>;
