import { bundleWorkflowCode } from '@temporalio/worker';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { workflowInterceptorsPath, workflowsPath } from '../worker/create-worker.ts';

// `npm run build:workflows [path]`: prebuilds the workflow bundle for production (the Dockerfile runs it), so a
// worker starts without bundling; point TEMPORAL_WORKFLOW_BUNDLE at the file.
const output = process.argv[2] ?? 'dist/workflow-bundle.js';
const { code } = await bundleWorkflowCode({ workflowsPath, workflowInterceptorModules: [workflowInterceptorsPath] });
mkdirSync(dirname(output), { recursive: true });
writeFileSync(output, code);
console.log(`Workflow bundle written to ${output} (${Math.round(code.length / 1024)} KiB).`);
