import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root, with a trailing slash: `file.slice(root.length)` names a file for a message. */
export const root = fileURLToPath(new URL('../../', import.meta.url));

/** Every TypeScript file below `directory` (relative to the root), for the checks that read the code as text. */
export function sources(directory: string): string[] {
  return readdirSync(join(root, directory), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}
