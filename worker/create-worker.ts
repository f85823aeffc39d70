import { Worker, type NativeConnection } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { createActivities, type ActivityDeps } from '../activities/index.ts';
import type { Config } from '../src/config.ts';
import { createImageProvider } from '../src/generation/create-image-provider.ts';

export const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

export type WorkerOptions = {
  connection: NativeConnection;
  config: Config;
  /** The long-lived clients the activities share with the rest of the process. */
  clients: Pick<ActivityDeps, 'orm' | 'storage' | 'logger'>;
  /** A prebuilt workflow bundle (`npm run build:workflows`); without one the worker bundles at start-up. */
  workflowBundlePath?: string | undefined;
};

/** The worker of the task queue in `config`, its activities wired from `config` (image provider, logo fetching). */
export function createWorker({ connection, config, clients, workflowBundlePath = config.temporal.workflowBundle }: WorkerOptions): Promise<Worker> {
  return Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    activities: createActivities({ ...clients, images: createImageProvider(config.generation), logoFetch: config.generation.logoFetch }),
    ...(workflowBundlePath ? { workflowBundle: { codePath: workflowBundlePath } } : { workflowsPath }),
  });
}
