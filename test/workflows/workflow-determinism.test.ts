import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The lint rules that keep workflow code deterministic (no Node built-ins, database or storage in workflows/) and
// dependencies one way (no workflow imports the domain; a workflow's contract imports nothing of ours at run time).
// Checked on code that breaks them, so the guards themselves cannot silently stop working.
// The project's own configuration, held to the one rule under test and without type information: the rule reads
// import lines only, and building the TypeScript program for type-aware rules took tens of seconds on a busy machine.
const restrictions = ['no-restricted-imports', '@typescript-eslint/no-restricted-imports'];
const eslint = new ESLint({
  cwd: new URL('../..', import.meta.url).pathname,
  ruleFilter: ({ ruleId }) => restrictions.includes(ruleId),
  overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
});

async function lintWorkflow(source: string, filePath = 'workflows/clean-up-orphaned-objects.ts'): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath });
  return (result?.messages ?? []).filter((message) => restrictions.includes(message.ruleId ?? '')).map((message) => message.message);
}

describe('workflow determinism lint', () => {
  it.each([
    ["import { readFileSync } from 'node:fs';", 'deterministic'],
    ["import { randomUUID } from 'crypto';", 'deterministic'],
    ["import { MikroORM } from '@mikro-orm/postgresql';", 'database'],
    ["import { openDatabase } from '../src/adapters/database/orm.ts';", 'database'],
    ["import { createStorage } from '../src/adapters/object-storage/create-storage.ts';", 'database or storage'],
    ["import { startVideo } from '../src/domain/video/start-video.ts';", 'must not import the domain'],
    ["import type { Deps } from '../src/domain/deps.ts';", 'must not import the domain'],
  ])('when a workflow has `%s`, then lint refuses it', async (line, reason) => {
    const messages = await lintWorkflow(`${line}\nexport const x = 1;\n`);
    expect(messages.join('\n')).toContain(reason);
  });

  it('when a workflow imports only the workflow API and activity types, then lint accepts it', async () => {
    const messages = await lintWorkflow(
      "import { proxyActivities } from '@temporalio/workflow';\nimport type { Activities } from '../activities/activity-signatures.ts';\nexport const acts = proxyActivities<Activities>({ startToCloseTimeout: '1 minute' });\n",
    );
    expect(messages).toEqual([]);
  });

  it('when a workflow contract imports code of ours at run time, then lint refuses it; a type import it accepts', async () => {
    const contract = 'workflows/contracts/render-post.ts';
    expect(
      (await lintWorkflow("import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';\nexport const ids = workflowIds;\n", contract)).join(
        '\n',
      ),
    ).toContain('imports nothing of ours at run time');
    expect(
      await lintWorkflow(
        "import type { PostFormat } from '../../src/adapters/artwork/post-formats.ts';\nexport type Input = { format: PostFormat };\n",
        contract,
      ),
    ).toEqual([]);
  });
});
