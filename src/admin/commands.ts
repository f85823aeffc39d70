import type { ParseArgsConfig } from 'node:util';
import { ApiKey, apiKeyScopes, type ApiKeyScope } from '../adapters/database/entities/api-key.ts';
import { plans, Workspace, type Plan } from '../adapters/database/entities/workspace.ts';
import type { Database } from '../adapters/database/orm.ts';
import type { Deps } from '../domain/deps.ts';
import { issueApiKey } from '../domain/api-keys/issue-api-key.ts';
import { changePlan } from '../domain/workspaces/change-plan.ts';
import { describeReport, reconcileSchedules } from '../domain/schedules/reconcile-schedules.ts';
import { describeResealReport, resealSecrets } from '../domain/secrets/reseal-secrets.ts';
import { createWorkspace } from '../domain/workspaces/create-workspace.ts';
import { isDateTime, isUuid } from '../common/validation/formats.ts';

type Values = Record<string, string | boolean | undefined>;
/** `exitCode`: 1 when the command did its work but the operator must act (it says what). */
type Result = { json: unknown; text: string; exitCode?: number };
type Command = { options: NonNullable<ParseArgsConfig['options']>; run(deps: Deps, values: Values): Promise<Result> };

const json = { type: 'boolean' } as const;
const text = { type: 'string' } as const;

export const usage = `Usage: npm run --silent admin -- <command> [options]

  workspace create --name NAME --plan starter|growth [--json]   create a workspace and its first API key
  workspace set-plan --id WORKSPACE_ID --plan starter|growth [--json]
  workspace list [--json]
  api-key create --workspace WORKSPACE_ID --name NAME [--expires-at ISO_DATE] [--scope read|publish|full] [--json]
  api-key deactivate --id KEY_ID [--json]                      the key answers 401 from now on
  api-key activate --id KEY_ID [--json]
  schedules reconcile [--json]                                   repair drift between schedules and Temporal now
  secrets reseal [--json]                                        re-seal every sealed value with the current key

Uses DATABASE_URL, or the dev stack's PostgreSQL under DATA_DIR (default .data) like \`npm run dev\`; Temporal at
TEMPORAL_ADDRESS, or the dev stack's.`;

export const adminCommands: Record<string, Command> = {
  'workspace create': {
    options: { name: text, plan: text, json },
    async run({ orm }, values) {
      const { workspace, apiKey } = await createWorkspace(orm, { name: name(values), plan: plan(values) });
      return {
        json: { workspaceId: workspace.id, apiKey },
        text: `Workspace ${workspace.id} (${workspace.plan}) created.\nAPI key (shown once): ${apiKey}`,
      };
    },
  },
  'workspace set-plan': {
    options: { id: text, plan: text, json },
    async run(deps, values) {
      const workspace = await changePlan(deps, id(values, 'id'), plan(values));
      return { json: { workspaceId: workspace.id, plan: workspace.plan }, text: `Workspace ${workspace.id} is now on ${workspace.plan}.` };
    },
  },
  'workspace list': {
    options: { json },
    async run({ orm }) {
      const workspaces = await orm.em.fork().find(Workspace, {}, { orderBy: { createdAt: 'asc' } });
      const rows = workspaces.map((w) => ({ workspaceId: w.id, name: w.name, plan: w.plan, createdAt: w.createdAt.toISOString() }));
      return { json: rows, text: rows.map((row) => `${row.workspaceId}  ${row.plan.padEnd(7)}  ${row.name}`).join('\n') || '(none)' };
    },
  },
  'api-key create': {
    options: { workspace: text, name: text, 'expires-at': text, scope: text, json },
    async run({ orm }, values) {
      const scope = keyScope(values);
      const expiresAt = typeof values['expires-at'] === 'string' ? new Date(dateTime(values, 'expires-at')) : null;
      const workspaceId = id(values, 'workspace');
      const keyName = name(values);
      const { apiKey, key } = await orm.em.fork().transactional(async (em) => {
        const workspace = await em.findOne(Workspace, workspaceId);
        if (!workspace) throw new Error(`No workspace ${workspaceId}`);
        return issueApiKey(em, { workspaceId: workspace.id, name: keyName, expiresAt, scope });
      });
      return { json: { id: apiKey.id, workspaceId: apiKey.workspaceId, scope, apiKey: key }, text: `API key ${apiKey.id} (${scope}, shown once): ${key}` };
    },
  },
  'schedules reconcile': {
    options: { json },
    async run(deps) {
      const report = await reconcileSchedules(deps);
      return { json: report, text: describeReport(report) };
    },
  },
  'secrets reseal': {
    options: { json },
    async run(deps) {
      const report = await resealSecrets(deps);
      // Non-zero until every value is on the current key, so a script can drop the older keys only after a 0.
      const remaining = report.columns.some((column) => column.remaining > 0);
      return { json: report, text: describeResealReport(report), exitCode: remaining ? 1 : 0 };
    },
  },
  'api-key deactivate': { options: { id: text, json }, run: ({ orm }, values) => setKeyActive(orm, id(values, 'id'), false) },
  'api-key activate': { options: { id: text, json }, run: ({ orm }, values) => setKeyActive(orm, id(values, 'id'), true) },
};

async function setKeyActive(orm: Database, id: string, isActive: boolean): Promise<Result> {
  const updated = await orm.em.fork().nativeUpdate(ApiKey, { id }, { isActive, updatedAt: new Date() });
  if (updated === 0) throw new Error(`No API key ${id}`);
  return { json: { id, isActive }, text: `API key ${id} is now ${isActive ? 'active' : 'inactive'}.` };
}

function required(values: Values, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new Error(`--${name} is required`);
  return value;
}

// The same rules as the API's for the same fields (openapi.yaml): an operator's typo gets a sentence, not a
// database error.
function name(values: Values): string {
  const value = required(values, 'name');
  if (value.length > 100 || value.includes('\0')) throw new Error('--name must be at most 100 characters, without NUL');
  return value;
}

function id(values: Values, option: string): string {
  const value = required(values, option);
  if (!isUuid(value)) throw new Error(`--${option} must be a UUID`);
  return value;
}

function dateTime(values: Values, option: string): string {
  const value = required(values, option);
  if (!isDateTime(value)) throw new Error(`--${option} must be an RFC 3339 date-time such as 2027-01-01T00:00:00Z`);
  return value;
}

/** The operator's key is `full` unless told otherwise, as the API's. */
function keyScope(values: Values): ApiKeyScope {
  const value = values.scope;
  if (value === undefined) return 'full';
  if (typeof value !== 'string' || !(apiKeyScopes as readonly string[]).includes(value)) throw new Error(`--scope must be one of ${apiKeyScopes.join(', ')}`);
  return value as ApiKeyScope;
}

function plan(values: Values): Plan {
  const value = required(values, 'plan');
  if (!(plans as readonly string[]).includes(value)) throw new Error(`--plan must be one of ${plans.join(', ')}`);
  return value as Plan;
}
