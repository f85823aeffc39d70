import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

// Workflow code runs in Temporal's deterministic sandbox: no Node built-ins, no database, no I/O libraries.
// Workflows reach the outside world only through activities, imported as types.
const forbiddenInWorkflows = {
  paths: builtinModules
    .flatMap((name) => [name, `node:${name}`])
    .map((name) => ({
      name,
      message: 'Workflows must stay deterministic: do I/O in an activity.',
    })),
  patterns: [
    {
      group: ['@mikro-orm/*', 'pg', '**/src/adapters/database/**', '**/src/adapters/object-storage/**'],
      message: 'Workflows must not touch the database or storage: call an activity.',
    },
    { group: ['@aws-sdk/*', 'got', 'sharp', 'express'], message: 'Workflows must stay deterministic: do I/O in an activity.' },
    // Dependencies run one way: the domain starts workflows, never the other way round (not even for a type; a
    // type a workflow shares with the domain lives in workflows/contracts/).
    { group: ['**/src/domain/**'], message: 'Workflows must not import the domain: put what both need in workflows/contracts/.' },
  ],
};

// A workflow's contract (its input, result, updates, queries, signals) is what its callers and the workflow both
// import: a leaf that imports nothing of ours at run time, so importing it never pulls in code.
const contractsAreLeaves = {
  patterns: [{ regex: '^\\.', allowTypeImports: true, message: 'A workflow contract imports nothing of ours at run time: import types only.' }],
};

// The layers, top to bottom: a file imports from its own layer and the layers below it, never from one above
// (docs/architecture.md, "Layers, one way"). A file belongs to the first layer whose pattern matches it; a product
// file in no layer, or an import of a file in no layer, fails, so a new folder is given its place on purpose.
const entryPoints = { api: 'src/api/**', admin: 'src/admin/**', local: 'src/local/**', worker: 'worker/**', tools: 'tools/**', bench: 'bench/**' };
const layers = {
  ...entryPoints,
  composition: 'src/services.ts',
  // Contracts and start-ups before the rest of workflows/: the first pattern that matches decides.
  'workflow-contract': 'workflows/contracts/**',
  'workflow-start': 'workflows/starts/**',
  workflow: 'workflows/**',
  activity: 'activities/**',
  domain: 'src/domain/**',
  adapter: 'src/adapters/**',
  foundation: ['src/config.ts', 'src/config/**', 'src/logger.ts', 'src/common/**'],
  // Not a layer: tests import anything and are checked by nothing here; only the benchmarks may borrow from them.
  test: 'test/**',
};

const layer = (...names) => ({ file: { categories: names } });
const temporalCode = ['workflow', 'workflow-contract', 'workflow-start', 'activity'];
const belowDomain = ['adapter', 'foundation'];

const oneWay = {
  default: 'disallow',
  checkUnknownLocals: true,
  policies: [
    { from: layer(...Object.keys(entryPoints)), allow: { to: layer('composition', ...temporalCode, 'domain', ...belowDomain) } },
    ...Object.keys(entryPoints).map((name) => ({ from: layer(name), allow: { to: layer(name) } })),
    { from: layer('composition'), allow: { to: layer('domain', ...belowDomain) } },
    // Workflows and activities are one layer, which meets in the contracts; an activity never imports workflow code.
    { from: layer(...temporalCode), allow: { to: layer('workflow-contract', ...belowDomain) } },
    // A workflow starts a child through the child's start-up, which names the workflow it starts.
    { from: layer('workflow', 'workflow-start'), allow: { to: layer('workflow', 'workflow-start') } },
    { from: layer('activity'), allow: { to: layer('activity', 'domain') } },
    { from: layer('domain'), allow: { to: layer('domain', ...belowDomain) } },
    { from: layer('adapter'), allow: { to: layer(...belowDomain) } },
    { from: layer('foundation'), allow: { to: layer('foundation') } },

    // The exceptions the design intends, each with its reason.
    // The domain starts workflows: it hands the workflow function, or its start-up, to the gateway, and shares types
    // with a workflow through its contract.
    { from: layer('domain'), allow: { to: layer('workflow', 'workflow-start', 'workflow-contract') } },
    // A workflow calls activities by their signatures: a type, never activity code.
    { from: layer('workflow'), allow: { to: { file: { path: 'activities/activity-signatures.ts' } }, dependency: { kind: 'type' } } },
    // The admin CLI, the migration author and the benchmarks run on the local stack, as `npm run dev` does.
    { from: layer('admin', 'tools', 'bench'), allow: { to: layer('local') } },
    // The workflow bundle is built with the worker's own options.
    { from: layer('tools'), allow: { to: layer('worker') } },
    // The benchmarks run the api and the worker in process, with the test suite's fakes and certificates.
    { from: layer('bench'), allow: { to: layer('api', 'worker', 'test') } },
  ],
};

export default tseslint.config(
  { ignores: ['node_modules/', '.data/', 'coverage/', 'test-results/', 'dist/', 'test-artifacts/', 'src/api/openapi-types.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js', 'tools/*.mjs'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/consistent-type-definitions': ['error', 'type'],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error', 'warn'] }],
    },
  },
  {
    // Every part of the product; tests are no layer (they may import anything).
    files: ['src/**/*.ts', 'workflows/**/*.ts', 'activities/**/*.ts', 'worker/**/*.ts', 'tools/**', 'bench/**/*.ts'],
    plugins: { boundaries },
    settings: {
      'boundaries/files': Object.entries(layers).map(([category, pattern]) => ({ category, pattern })),
      'boundaries/files-single-match': true,
    },
    rules: { 'boundaries/dependencies': ['error', oneWay], 'boundaries/no-unknown-files': 'error' },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', forbiddenInWorkflows] },
  },
  {
    files: ['workflows/contracts/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', contractsAreLeaves] },
  },
  {
    files: ['tools/**', 'test/**', 'src/local/dev/**', 'src/admin/**', 'bench/**'],
    rules: { 'no-console': 'off' },
  },
  {
    // Matchers such as expect.any() are typed `any` by design.
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
  {
    // The dashboard: plain browser modules served as they are (no build step, so no TypeScript to check them).
    files: ['src/api/dashboard/public/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'module',
      globals: {
        document: 'readonly',
        sessionStorage: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        HTMLElement: 'readonly',
        AbortController: 'readonly',
        DOMException: 'readonly',
      },
    },
  },
  {
    // Plain JavaScript that runs before dependencies exist (any Node version).
    files: ['**/*.mjs', '*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { process: 'readonly', URL: 'readonly', console: 'readonly' } },
  },
);
