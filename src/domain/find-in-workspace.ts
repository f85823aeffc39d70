import { LockMode, type EntityManager, type EntityName, type FilterQuery } from '@mikro-orm/postgresql';
import { ApiKey } from '../adapters/database/entities/api-key.ts';
import { BrandKit } from '../adapters/database/entities/brand-kit.ts';
import { Post } from '../adapters/database/entities/post.ts';
import { Project } from '../adapters/database/entities/project.ts';
import { Schedule } from '../adapters/database/entities/schedule.ts';
import { SocialConnection } from '../adapters/database/entities/social-connection.ts';
import { Webhook } from '../adapters/database/entities/webhook.ts';
import { notFound } from '../common/errors/app-error.ts';

/** The caller's row with this id, as a managed entity; `lock` holds it (FOR UPDATE) until the transaction ends. */
type FindInWorkspace<Entity> = (em: EntityManager, workspaceId: string, id: string, options?: { lock?: boolean }) => Promise<Entity>;

/**
 * The look-up every resource's use cases share: scoped by workspace, so another workspace's row is indistinguishable
 * from a missing one, and a 404 that names what was asked for (`shownAs` and the id).
 */
function findInWorkspace<Entity extends { id: string; workspaceId: string }>(entity: EntityName<Entity>, shownAs: string): FindInWorkspace<Entity> {
  return async (em, workspaceId, id, options = {}) => {
    const found = await em.findOne(entity, { id, workspaceId } as FilterQuery<Entity>, options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
    if (!found) throw notFound(`${shownAs} ${id}`);
    return found;
  };
}

export const findApiKey = findInWorkspace(ApiKey, 'API key');
export const findBrandKit = findInWorkspace(BrandKit, 'Brand kit');
export const findPost = findInWorkspace(Post, 'Post');
export const findProject = findInWorkspace(Project, 'Project');
export const findSchedule = findInWorkspace(Schedule, 'Schedule');
export const findSocialConnection = findInWorkspace(SocialConnection, 'Social connection');
export const findWebhook = findInWorkspace(Webhook, 'Webhook');
