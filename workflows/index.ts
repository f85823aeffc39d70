// Every workflow the worker runs. The worker bundles this file; the api only imports workflow *types*.
export { cleanUpOrphanedObjects, sweepOrphanedObjects } from './clean-up-orphaned-objects.ts';
export { generatePost } from './generate-post.ts';
export { renderPost } from './render-post.ts';
export { deliverEvent } from './deliver-event.ts';
export { redeliverWebhook } from './redeliver-webhook.ts';
export { postPublication } from './post-publication.ts';
export { scheduledGeneration } from './scheduled-generation.ts';
export { generateVideo } from './generate-video.ts';
export { reconcileSchedules } from './reconcile-schedules.ts';
export { applyWorkspacePlan } from './apply-workspace-plan.ts';
export { keepConnectionAlive } from './keep-connection-alive.ts';
export { sweepEvents } from './sweep-events.ts';
