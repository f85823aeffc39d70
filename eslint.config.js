import js from '@eslint/js';
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
