import type { Database } from '../../src/adapters/database/orm.ts';
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
