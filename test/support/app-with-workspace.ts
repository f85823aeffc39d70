import type { Plan } from '../../src/adapters/database/entities/workspace.ts';
import { startTestApp, type TestApp } from './test-app.ts';
import { createTestWorkspace, type TestWorkspace } from './workspaces.ts';

type Options = {
  /** Configuration overrides, as environment variables (e.g. a fake's URL). */
  env?: Record<string, string>;
  /** The workspace's plan; growth unless given. */
  plan?: Plan;
  /** The name of a project to create in the workspace, for files whose posts all go in one. */
  project?: string;
  /** Whether the service checks its own answers against openapi.yaml (startTestApp); true unless given. */
  validateResponses?: boolean;
};
export type AppWithWorkspace = { app: TestApp; workspace: TestWorkspace };

/** What most API test files start with: the real service (startTestApp), a workspace with its key, maybe a project. */
export async function startAppWithWorkspace(options: Options & { project: string }): Promise<AppWithWorkspace & { projectId: string }>;
export async function startAppWithWorkspace(options?: Options): Promise<AppWithWorkspace>;
export async function startAppWithWorkspace({ env, plan = 'growth', project, validateResponses }: Options = {}): Promise<
  AppWithWorkspace & { projectId?: string }
> {
  const app = await startTestApp(env, { ...(validateResponses !== undefined && { validateResponses }) });
  const workspace = await createTestWorkspace(app, plan);
  if (project === undefined) return { app, workspace };
  const created = await workspace.client.post<{ id: string }>('/projects', { name: project });
  if (created.status !== 201) throw new Error(`Could not create the project: ${created.status} ${JSON.stringify(created.body)}`);
  return { app, workspace, projectId: created.body.id };
}
