import { Worker, type NativeConnection } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { createActivities } from '../activities/index.ts';
import { clientOnWorkerConnection } from '../src/adapters/temporal/connect.ts';
import type { Config } from '../src/config.ts';
import type { Deps } from '../src/domain/deps.ts';
import type { Tracing } from '../src/adapters/telemetry/start-tracing.ts';
import { activityInterceptors } from './activity-interceptors.ts';
import { workflowSpanSink } from './workflow-span-sink.ts';

export const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
/** Part of every workflow bundle: pass it to `bundleWorkflowCode` as `workflowInterceptorModules`. */
export const workflowInterceptorsPath = fileURLToPath(new URL('../workflows/interceptors.ts', import.meta.url));

export type WorkerOptions = {
  connection: NativeConnection;
  config: Config;
  /** The process's deps (src/services.ts): the activities' clients and settings. */
  deps: Deps;
  /** A prebuilt workflow bundle (`npm run build:workflows`); without one the worker bundles at start-up. */
  workflowBundlePath?: string | undefined;
  /** This process's tracing, when it is on (src/adapters/telemetry/start-tracing.ts). */
  tracing?: Tracing | undefined;
};

/** The worker of the task queue in `config`: every workflow and activity (the video worker serves encodes). */
export function createWorker({ connection, config, deps, workflowBundlePath = config.temporal.workflowBundle, tracing }: WorkerOptions): Promise<Worker> {
  return Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    // Activities start workflows (an event's delivery) through the worker's own connection, so those can start
    // eagerly on this worker (src/adapters/temporal/connect.ts).
    activities: createActivities({ ...deps, temporal: clientOnWorkerConnection(connection, config.temporal) }),
    // Heartbeats carry progress (a video's encoding) that users watch; by default the SDK sends them only every
    // 80% of the heartbeat timeout, which would make progress jump in steps of many seconds.
    maxHeartbeatThrottleInterval: '1 second',
    shutdownGraceTime: `${config.temporal.shutdownGraceSeconds} seconds`,
    // A prebuilt bundle has the workflow interceptors built in; `workflowModules` is for bundling at start-up.
    interceptors: { activity: activityInterceptors, workflowModules: [workflowInterceptorsPath] },
    sinks: workflowSpanSink(tracing),
    ...(workflowBundlePath ? { workflowBundle: { codePath: workflowBundlePath } } : { workflowsPath }),
  });
}
