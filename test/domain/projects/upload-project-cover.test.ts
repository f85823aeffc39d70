import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrphanedObject } from '../../../src/adapters/database/entities/orphaned-object.ts';
import { Project } from '../../../src/adapters/database/entities/project.ts';
import { uploadProjectCover } from '../../../src/domain/projects/upload-project-cover.ts';
import { makeImage } from '../../support/images.ts';
import { startTestApp, type TestApp } from '../../support/test-app.ts';
import { createTestWorkspace } from '../../support/workspaces.ts';

// A cover upload records its new object as orphaned before storing the bytes and claims it when it commits, so an
// upload that dies in between leaves a record behind for the sweep instead of an object nobody knows about.

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

describe('cover upload claims', () => {
  it('when an upload commits, then no orphan record is left for its object', async () => {
    const workspace = await createTestWorkspace(app, 'growth');
    const { body: project } = await workspace.client.post<{ id: string }>('/projects', { name: 'Claimed' });
    const caller = { workspaceId: workspace.id, plan: 'growth' as const, apiKeyId: 'n/a', scope: 'full' as const };
    const { coverKey } = await uploadProjectCover(app.api.services, caller, project.id, await makeImage('png'));
    expect(await app.api.services.orm.em.fork().count(OrphanedObject, { objectKey: coverKey })).toBe(0);
  });

  it('when the project disappears before the upload commits, then the stored object stays recorded for the sweep', async () => {
    const workspace = await createTestWorkspace(app, 'growth');
    const { body: project } = await workspace.client.post<{ id: string }>('/projects', { name: 'Vanishing' });
    const caller = { workspaceId: workspace.id, plan: 'growth' as const, apiKeyId: 'n/a', scope: 'full' as const };
    const services = app.api.services;
    // Delete the project just after the bytes are stored, before the upload's commit.
    const storage = {
      ...services.storage,
      async put(key: string, body: Buffer, contentType: string) {
        await services.storage.put(key, body, contentType);
        expect((await workspace.client.delete(`/projects/${project.id}`)).status).toBe(204);
      },
    };
    await expect(uploadProjectCover({ ...services, storage }, caller, project.id, await makeImage('png'))).rejects.toMatchObject({ code: 'not-found' });
    const orphans = await services.orm.em.fork().find(OrphanedObject, { objectKey: { $like: `workspaces/${workspace.id}/projects/${project.id}/%` } });
    expect(orphans).toHaveLength(1);
    expect(orphans[0]!.deleteAfter.getTime()).toBeGreaterThan(Date.now() + 50 * 60 * 1000);
    expect(await services.storage.get(orphans[0]!.objectKey)).not.toBeNull();
  });

  it('when the upload was swept before it commits, then it answers 503 and the project keeps its cover, which stays unorphaned', async () => {
    const workspace = await createTestWorkspace(app, 'growth');
    const { body: project } = await workspace.client.post<{ id: string }>('/projects', { name: 'Swept' });
    const caller = { workspaceId: workspace.id, plan: 'growth' as const, apiKeyId: 'n/a', scope: 'full' as const };
    const services = app.api.services;
    const { coverKey: kept } = await uploadProjectCover(services, caller, project.id, await makeImage('png'));
    // The sweep takes the new object's record (as after the grace period) just after the bytes are stored.
    const storage = {
      ...services.storage,
      async put(key: string, body: Buffer, contentType: string) {
        await services.storage.put(key, body, contentType);
        await services.orm.em.fork().nativeDelete(OrphanedObject, { objectKey: key });
      },
    };
    await expect(uploadProjectCover({ ...services, storage }, caller, project.id, await makeImage('png'))).rejects.toMatchObject({
      code: 'service-unavailable',
    });
    const em = services.orm.em.fork();
    expect((await em.findOneOrFail(Project, project.id)).coverKey).toBe(kept);
    expect(await em.count(OrphanedObject, { objectKey: kept })).toBe(0);
  });
});
