import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrphanedObject } from '../../../src/adapters/database/entities/orphaned-object.ts';
import { Project } from '../../../src/adapters/database/entities/project.ts';
import { startTemporalDevServer, type TemporalDevServer } from '../../../src/local/embedded/temporal-dev-server.ts';
import type { sweepOrphanedObjects } from '../../../workflows/clean-up-orphaned-objects.ts';
import { eventually } from '../../support/eventually.ts';
import { makeImage } from '../../support/images.ts';
import { startTestApp, type TestApp } from '../../support/test-app.ts';
import { createTestWorkspace } from '../../support/workspaces.ts';

// Kills the Temporal server between "database updated" and "cleanup workflow started", then brings it back:
// the request still succeeds, the orphaned object is remembered in the database, and the sweep deletes it.

let temporal: TemporalDevServer;
let app: TestApp;

beforeAll(async () => {
  temporal = await startTemporalDevServer({ headless: true });
  // The delete below waits out one Temporal deadline (10 s by default) for the cleanup start.
  app = await startTestApp({ TEMPORAL_ADDRESS: temporal.address, TEMPORAL_CALL_TIMEOUT_SECONDS: '5' });
});
afterAll(async () => {
  await app?.stop();
  await temporal?.stop();
});

describe('a project deleted while Temporal is down', () => {
  it('when Temporal comes back, then the sweep deletes the cover that was left behind', async () => {
    const workspace = await createTestWorkspace(app, 'growth');
    const { body: project } = await workspace.client.post<{ id: string }>('/projects', { name: 'Outage' });
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await makeImage('png'))], { type: 'image/png' }), 'cover.png');
    expect((await workspace.client.post(`/projects/${project.id}/cover`, form)).status).toBe(200);
    const coverKey = (await app.api.services.orm.em.fork().findOneOrFail(Project, project.id)).coverKey!;

    await temporal.stop();
    const ready = await fetch(`${app.url}/ready`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { detail: string }).detail).toBe('Not ready: temporal not answering.');

    const deleted = await workspace.client.delete(`/projects/${project.id}`);
    expect(deleted.status).toBe(204);
    expect(await app.storage.get(coverKey)).not.toBeNull();
    expect(await app.api.services.orm.em.fork().count(OrphanedObject, { objectKey: coverKey })).toBe(1);

    const port = Number(temporal.address.split(':')[1]);
    temporal = await startTemporalDevServer({ headless: true, port });
    await eventually(async () => {
      const result = await app.api.services.temporal.workflow.execute<typeof sweepOrphanedObjects>('sweepOrphanedObjects', {
        workflowId: `sweep-after-outage-${Date.now()}`,
        taskQueue: app.config.temporal.taskQueue,
        workflowExecutionTimeout: '10 seconds',
      });
      expect(result.deleted).toBe(1);
    }, 60_000);
    expect(await app.storage.get(coverKey)).toBeNull();
    expect(await app.api.services.orm.em.fork().count(OrphanedObject, { objectKey: coverKey })).toBe(0);
    // The delete waits out one Temporal deadline for the cleanup start, and a restarted server takes a while.
  }, 90_000);
});
