import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from '../fakes/closed-port.ts';
import { ensureSchemathesis, type SchemathesisCommand } from '../infra/schemathesis.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import type { TestWorkspace } from '../support/workspaces.ts';

// schemathesis against the real service, with every
// check, both its generated phases (examples, coverage, fuzzing) and its stateful phase (openapi.yaml's links), a
// fixed seed and a fixed budget: 40 examples per operation in `npm test`, FUZZ_MAX_EXAMPLES for a deeper run. test/fuzz/schemathesis.toml and hooks.py
// say which answers count as correct beyond schemathesis's defaults, and why.
//
// Deleting or regenerating a key ends the run of whoever holds it, and ids of the run's own keys turn up in responses
// (`GET /api-keys`) that schemathesis reuses. So those two operations are left out of the main run and run afterwards
// with a key of their own, together with `POST /api-keys` only: nothing in that run ever shows its own key's id.
const config = fileURLToPath(new URL('schemathesis.toml', import.meta.url));
const hooks = fileURLToPath(new URL('hooks.py', import.meta.url));
const seed = 20_260_101;
const maxExamples = Number(process.env.FUZZ_MAX_EXAMPLES ?? 40);
const keyOperations = ['deleteApiKey', 'regenerateApiKey'];

let schemathesis: SchemathesisCommand;
let app: TestApp;
let workspace: TestWorkspace;
let reports: string;

beforeAll(async () => {
  schemathesis = await ensureSchemathesis((message) => console.log(`[schemathesis] ${message}`));
  // The rate limit is per key; the fuzzer sends thousands of requests a minute.
  // Limits high enough that the fuzzer's own volume never turns into 429s (its unknown keys are failed logins).
  // Telegram's, Discord's and Slack's APIs on a loopback port where nothing listens, which the service refuses to call
  // (private networks are not allowed here): no generated bot token or webhook reaches the real platforms.
  const nowhere = `https://127.0.0.1:${await closedPort()}`;
  ({ app, workspace } = await startAppWithWorkspace({
    env: {
      RATE_LIMIT_REQUESTS: '1000000',
      RATE_LIMIT_WORKSPACE_REQUESTS: '1000000',
      RATE_LIMIT_AUTH_FAILURES: '1000000',
      TELEGRAM_API_URL: nowhere,
      DISCORD_API_URL: `${nowhere}/api`,
      SLACK_API_URL: `${nowhere}/api`,
    },
    // schemathesis checks every answer against openapi.yaml itself (response_schema_conformance, in `--checks all`).
    // The service's own check (express-openapi-validator's) would do it a second time, for a quarter of the run's time.
    validateResponses: false,
  }));
  reports = mkdtempSync(join(tmpdir(), 'schemathesis-'));
}, 180_000);

afterAll(async () => {
  await app?.stop();
  if (reports) rmSync(reports, { recursive: true, force: true });
});

describe('fuzzing the api with schemathesis', () => {
  it('when every operation is fuzzed against openapi.yaml, then no answer is a server error, breaks the schema, or accepts invalid data', async () => {
    // Made first: the main run's creates fill the plan's budget of keys (403 plan-limit-reached from then on).
    const ownKey = await workspace.client.post<{ key: string }>('/api-keys', { name: 'fuzzer: key operations' });
    expect(ownKey.status).toBe(201);
    const main = await runSchemathesis(
      'main',
      workspace.key,
      keyOperations.flatMap((id) => ['--exclude-operation-id', id]),
    );
    const keys = await runSchemathesis(
      'api-keys',
      ownKey.body.key,
      ['createApiKey', ...keyOperations].flatMap((id) => ['--include-operation-id', id]),
    );
    const seconds = main.seconds + keys.seconds;
    console.log(`[schemathesis] ${main.cases + keys.cases} cases in ${seconds.toFixed(0)} s (seed ${seed}, ${maxExamples} examples per operation)`);

    expect([...main.problems, ...keys.problems]).toEqual([]);
    expect({ main: main.exitCode, keys: keys.exitCode }).toEqual({ main: 0, keys: 0 });
  }, 900_000);
});

type RunResult = { exitCode: number | null; cases: number; seconds: number; problems: string[] };

/** One schemathesis run against the app with `key`, limited to the operations `filter` selects. */
async function runSchemathesis(name: string, key: string, filter: string[]): Promise<RunResult> {
  const report = join(reports, `${name}.json`);
  const args = [
    ...schemathesis.args,
    '--config-file',
    config,
    'run',
    `${app.url}/openapi.yaml`,
    '--url',
    `${app.url}/api/v1`,
    '--checks',
    'all',
    '--phases',
    'examples,coverage,fuzzing,stateful',
    '--seed',
    String(seed),
    '--max-examples',
    String(maxExamples),
    // Every operation spends its whole budget even after a failure: the run's length and the list of failures do not
    // depend on which one came first.
    '--continue-on-failure',
    // One worker: with two, hypothesis 6.170 on Python 3.11 crashes now and then describing its strategies (its source
    // cache is not thread-safe), and the app needs the other core.
    '--workers',
    '1',
    '--report',
    'json',
    '--report-json-path',
    report,
    '--no-color',
    ...filter,
  ];
  console.log(`[schemathesis] ${name}: ${filter.join(' ')}`);
  // schemathesis's own console report is kept and shown only when the run fails: its pytest-like banners
  // ("==== SUMMARY ====", "N skipped") would otherwise read as the suite's closing lines to whoever parses the output.
  const output: Buffer[] = [];
  const exitCode = await new Promise<number | null>((resolveRun, reject) => {
    const child = spawn(schemathesis.python, args, {
      env: { ...process.env, FUZZ_API_KEY: key, SCHEMATHESIS_HOOKS: hooks },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('error', reject);
    child.on('close', resolveRun);
  });
  if (exitCode !== 0) console.log(`[schemathesis] ${name} exited ${exitCode}:\n${Buffer.concat(output).toString('utf8')}`);
  const summary = JSON.parse(readFileSync(report, 'utf8')) as JsonReport;
  return {
    exitCode,
    cases: summary.test_cases.generated,
    seconds: summary.running_time,
    problems: [
      ...summary.failures.map((failure) => `${name}: ${failure.code} ${failure.title} (${failure.count}): ${failure.operations.join(', ')}`),
      ...summary.errors.map((error) => `${name}: error ${error.title} (${error.count})`),
    ],
  };
}

/** The parts of schemathesis's JSON report (`--report json`) the test reads. */
type JsonReport = {
  running_time: number;
  test_cases: { generated: number };
  failures: Array<{ code: string; title: string; count: number; operations: string[] }>;
  errors: Array<{ title: string; count: number }>;
};
