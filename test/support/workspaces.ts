import type { Plan } from '../../src/adapters/database/entities/workspace.ts';
import { createWorkspace } from '../../src/domain/workspaces/create-workspace.ts';
import type { TestApp } from './test-app.ts';
import { apiClient, type ApiClient } from './http.ts';

export type TestWorkspace = { id: string; key: string; client: ApiClient };

/** A workspace on the given plan with a working key, created the way an operator does (admin use case). */
export async function createTestWorkspace(app: TestApp, plan: Plan, name = `${plan} workspace`): Promise<TestWorkspace> {
  const { workspace, apiKey } = await createWorkspace(app.api.services.orm, { name, plan });
  return { id: workspace.id, key: apiKey, client: apiClient(app.url, apiKey) };
}
