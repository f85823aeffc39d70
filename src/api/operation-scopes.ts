import type { ApiKeyScope } from '../adapters/database/entities/api-key.ts';
import type { operations } from './openapi-types.ts';

/** An operation of openapi.yaml, or one of the dashboard's own API (outside the contract). */
export type ScopedOperation = keyof operations | 'startVideo';

/**
 * The one table of what each operation needs of the calling key (docs/api.md, Key scopes): the REST API checks it
 * before validating the request (middleware/require-scope.ts), the dashboard's API per route, the MCP server per
 * changing tool. `read` reads; `publish` also makes and publishes content (posts, projects, brand kits, schedules);
 * `full` also changes where the workspace's data and accounts go (webhooks, social connections), its settings and its
 * keys. Typed by openapi.yaml's operations, so a new operation without an entry does not compile.
 */
export const operationScopes: Record<ScopedOperation, ApiKeyScope> = {
  listPosts: 'read',
  createPost: 'publish',
  listProjectPosts: 'read',
  getPost: 'read',
  updatePost: 'publish',
  deletePost: 'publish',
  generatePost: 'publish',
  renderPost: 'publish',
  publishPost: 'publish',
  schedulePost: 'publish',
  publishPostToSocial: 'publish',
  listPublishTargets: 'read',
  downloadPost: 'read',
  listPostVersions: 'read',
  restorePostVersion: 'publish',
  listProjects: 'read',
  createProject: 'publish',
  getProject: 'read',
  updateProject: 'publish',
  deleteProject: 'publish',
  uploadProjectCover: 'publish',
  deleteProjectCover: 'publish',
  listBrandKits: 'read',
  createBrandKit: 'publish',
  getBrandKit: 'read',
  updateBrandKit: 'publish',
  deleteBrandKit: 'publish',
  listSchedules: 'read',
  createSchedule: 'publish',
  getSchedule: 'read',
  updateSchedule: 'publish',
  deleteSchedule: 'publish',
  // Webhooks send the workspace's events to a URL of the caller's choosing: a settings change.
  listWebhooks: 'read',
  createWebhook: 'full',
  updateWebhook: 'full',
  deleteWebhook: 'full',
  listWebhookDeliveries: 'read',
  testWebhook: 'full',
  redeliverWebhookDelivery: 'full',
  listSocialPlatforms: 'read',
  // Connections decide which accounts the workspace posts as; verifying one only asks the platform, as publishing does.
  listSocialConnections: 'read',
  createSocialConnection: 'full',
  createOAuthAuthorization: 'full',
  verifySocialConnection: 'publish',
  listSocialConnectionDestinations: 'read',
  getSocialConnection: 'read',
  updateSocialConnection: 'full',
  deleteSocialConnection: 'full',
  getVideoJob: 'read',
  getVideoPresignedUrl: 'read',
  startVideo: 'publish',
  listUsageActivity: 'read',
  // Key management, the listing included: which keys exist is for whoever may revoke them.
  listApiKeys: 'full',
  createApiKey: 'full',
  deleteApiKey: 'full',
  regenerateApiKey: 'full',
  getWorkspace: 'read',
  updateWorkspace: 'full',
};
