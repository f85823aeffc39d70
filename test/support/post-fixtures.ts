import type { EntityManager } from '@mikro-orm/postgresql';
import type { SecretBox } from '../../src/adapters/crypto/secret-box.ts';
import type { Database } from '../../src/adapters/database/orm.ts';
import { SocialConnection } from '../../src/adapters/database/entities/social-connection.ts';
import type { MastodonServer } from '../fakes/mastodon-server.ts';
import { BrandKit } from '../../src/adapters/database/entities/brand-kit.ts';
import { Post } from '../../src/adapters/database/entities/post.ts';
import { Project } from '../../src/adapters/database/entities/project.ts';
import { createWorkspace } from '../../src/domain/workspaces/create-workspace.ts';

/** A workspace, project and post written straight to the database, for workflow tests that run without the api. */
export async function createPostFixture(orm: Database, options: { withBrandKit?: boolean } = {}): Promise<Post> {
  const { workspace } = await createWorkspace(orm, { name: 'Fixture', plan: 'growth' });
  const em = orm.em.fork();
  const project = em.create(Project, { workspaceId: workspace.id, name: 'Fixture project', status: 'active' });
  const brandKit = options.withBrandKit
    ? em.create(BrandKit, { workspaceId: workspace.id, name: 'Fixture kit', colors: { primary: '#224466' }, fonts: {} })
    : null;
  const post = em.create(Post, {
    workspaceId: workspace.id,
    projectId: project.id,
    title: 'Fixture post',
    prompt: 'A lighthouse in a storm',
    brandKitId: brandKit?.id ?? null,
  });
  await em.flush();
  return post;
}

/** A connection of the post's workspace to the fake Mastodon, written straight to the database (not flushed). */
export function mastodonConnectionFixture(em: EntityManager, post: Post, mastodon: MastodonServer, secrets: SecretBox): SocialConnection {
  return em.create(SocialConnection, {
    workspaceId: post.workspaceId,
    platform: 'mastodon',
    serverUrl: mastodon.url,
    accountName: '@alice@127.0.0.1',
    accountId: mastodon.account.id,
    credentialsSealed: secrets.seal(JSON.stringify({ platform: 'mastodon', instanceUrl: mastodon.url, accessToken: mastodon.token })),
  });
}
