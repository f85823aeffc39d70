import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { resolveLocalDatabase } from '../local/embedded/local-database.ts';
import { localStackEnv } from '../local/embedded/local-stack-env.ts';
import { createServices, type Services } from '../services.ts';
import { adminCommands, usage } from './commands.ts';

// `npm run --silent admin -- <command>`: operator commands against DATABASE_URL, or, like `npm run dev`, the
// private cluster under DATA_DIR. Results go to stdout (one JSON object with --json); progress goes to stderr.

const [group, action, ...rest] = process.argv.slice(2);
const command = adminCommands[`${group} ${action}`];
if (!command) {
  console.error(usage);
  process.exit(group === undefined || group === 'help' ? 0 : 2);
}

let parsed: ReturnType<typeof parseArgs<{ options: typeof command.options }>>['values'];
try {
  parsed = parseArgs({ args: rest, options: command.options, strict: true }).values;
} catch (error) {
  console.error(`${(error as Error).message}\n\n${usage}`);
  process.exit(2);
}

const database = await resolveLocalDatabase((message) => console.error(message));
let deps: Services | undefined;
let exitCode: number;
try {
  deps = await createServices(loadConfig(localStackEnv(database)), { name: 'admin', role: 'cli' });
  const result = await command.run(deps, parsed as Record<string, string | boolean | undefined>);
  console.log(parsed.json ? JSON.stringify(result.json) : result.text);
  exitCode = result.exitCode ?? 0;
} catch (error) {
  console.error(`error: ${(error as Error).message}`);
  exitCode = 1;
} finally {
  await deps?.close();
  if (database.cluster?.started) await database.cluster.stop();
}
process.exit(exitCode);
