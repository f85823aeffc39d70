import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

// CI guard: src/api/openapi-types.ts must be what openapi-typescript makes of openapi.yaml today.
const committed = readFileSync('src/api/openapi-types.ts', 'utf8');
const generated = execFileSync('node_modules/.bin/openapi-typescript', ['openapi.yaml'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
if (generated.trim() !== committed.trim()) {
  console.error('src/api/openapi-types.ts is out of date with openapi.yaml: run `npm run generate:types`.');
  process.exit(1);
}
