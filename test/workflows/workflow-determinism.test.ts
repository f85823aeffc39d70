import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The lint rule that keeps workflow code deterministic: no Node built-ins, database or storage in workflows/.
// Checked on code that breaks it, so the guard itself cannot silently stop working.
// The project's own configuration, held to the one rule under test and without type information: the rule reads
// import lines only, and building the TypeScript program for type-aware rules took tens of seconds on a busy machine.
const eslint = new ESLint({
  cwd: new URL('../..', import.meta.url).pathname,
  ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports',
  overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
});

async function lintWorkflow(source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: 'workflows/clean-up-orphaned-objects.ts' });
  return (result?.messages ?? []).filter((message) => message.ruleId === 'no-restricted-imports').map((message) => message.message);
}

describe('workflow determinism lint', () => {
  it.each([
    ["import { readFileSync } from 'node:fs';", 'deterministic'],
    ["import { randomUUID } from 'crypto';", 'deterministic'],
    ["import { MikroORM } from '@mikro-orm/postgresql';", 'database'],
    ["import { openDatabase } from '../src/data/orm.ts';", 'database'],
    ["import { createStorage } from '../src/storage/create-storage.ts';", 'database or storage'],
  ])('when a workflow has `%s`, then lint refuses it', async (line, reason) => {
    const messages = await lintWorkflow(`${line}\nexport const x = 1;\n`);
    expect(messages.join('\n')).toContain(reason);
  });

  it('when a workflow imports only the workflow API and activity types, then lint accepts it', async () => {
    const messages = await lintWorkflow(
      "import { proxyActivities } from '@temporalio/workflow';\nimport type { Activities } from '../activities/index.ts';\nexport const acts = proxyActivities<Activities>({ startToCloseTimeout: '1 minute' });\n",
    );
    expect(messages).toEqual([]);
  });
});
