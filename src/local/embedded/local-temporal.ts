import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataDir } from './local-database.ts';
import { writeFileWhole } from './write-file-whole.ts';

const stateFile = () => join(dataDir(), 'dev-temporal.json');

/** Written by `npm run dev`: where its Temporal dev server listens (it may not be the default port); read by the admin CLI. */
export function rememberLocalTemporal(address: string): void {
  writeFileWhole(stateFile(), JSON.stringify({ address }));
}

/** TEMPORAL_ADDRESS, else the dev stack's Temporal (when `npm run dev` started one), else the default. */
export function localTemporal(): { address: string } {
  if (process.env.TEMPORAL_ADDRESS) return { address: process.env.TEMPORAL_ADDRESS };
  if (existsSync(stateFile())) return JSON.parse(readFileSync(stateFile(), 'utf8')) as { address: string };
  return { address: 'localhost:7233' };
}
