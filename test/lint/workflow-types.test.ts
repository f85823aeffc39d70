import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { root, sources } from './source-files.ts';

// A workflow is started by its function, never by its name in a string: renaming the function is then a compile
// error instead of a start that Temporal accepts and no worker ever runs.

const startByName =
  /(?:workflow\.(?:start|execute|signalWithStart)|WithStartWorkflowOperation|executeChild|startChild)(?:<[^>]*>)?\(\s*['"`]|workflowType:\s*['"`]/g;

describe('workflow types', () => {
  it('when the service starts or schedules a workflow, then it names the workflow by its function', () => {
    const offenders = ['src', 'activities', 'worker', 'workflows'].flatMap(sources).flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return [...text.matchAll(startByName)].map((match) => `${file.slice(root.length)}: ${match[0]}`);
    });
    expect(offenders).toEqual([]);
  });
});
