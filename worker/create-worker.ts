import { Worker, type NativeConnection } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { createActivities, type ActivityDeps } from '../activities/index.ts';

export const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

export type WorkerOptions = {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activityDeps: ActivityDeps;
  /** A prebuilt workflow bundle (`npm run build:workflows`); without one the worker bundles at start-up. */
  workflowBundlePath?: string | undefined;
};

export function createWorker(options: WorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: createActivities(options.activityDeps),
    ...(options.workflowBundlePath ? { workflowBundle: { codePath: options.workflowBundlePath } } : { workflowsPath }),
  });
}
