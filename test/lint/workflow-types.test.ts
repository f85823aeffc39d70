import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// A workflow is started by its function, never by its name in a string: renaming the function is then a compile
// error instead of a start that Temporal accepts and no worker ever runs.

const root = fileURLToPath(new URL('../../', import.meta.url));
const startByName = /(?:workflow\.(?:start|execute|signalWithStart)|WithStartWorkflowOperation|executeChild|startChild)(?:<[^>]*>)?\(\s*['"`]|workflowType:\s*['"`]/g;

function sources(directory: string): string[] {
  return readdirSync(join(root, directory), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('workflow types', () => {
  it('when the service starts or schedules a workflow, then it names the workflow by its function', () => {
    const offenders = ['src', 'worker', 'workflows'].flatMap(sources).flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return [...text.matchAll(startByName)].map((match) => `${file.slice(root.length)}: ${match[0]}`);
    });
    expect(offenders).toEqual([]);
  });
});
