import { Worker, type NativeConnection } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { createActivities, type ActivityDeps } from '../activities/index.ts';
import type { Config } from '../src/config.ts';
import type { Tracing } from '../src/telemetry/start-tracing.ts';
import { createSecretBox } from '../src/crypto/secret-box.ts';
import { createImageProvider } from '../src/generation/create-image-provider.ts';
import { createSocialConnectors } from '../src/social/create-social-connectors.ts';
import { activityInterceptors } from './activity-interceptors.ts';
import { workflowSpanSink } from './workflow-span-sink.ts';

export const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
/** Part of every workflow bundle: pass it to `bundleWorkflowCode` as `workflowInterceptorModules`. */
export const workflowInterceptorsPath = fileURLToPath(new URL('../workflows/interceptors.ts', import.meta.url));

/** The long-lived clients the activities share with the rest of the process. */
export type ActivityClients = Pick<ActivityDeps, 'orm' | 'storage' | 'logger' | 'temporal'>;

/** Everything the activities need: the process's clients plus what `config` says (providers, connectors, keys). */
export function activityDeps(config: Config, clients: ActivityClients): ActivityDeps {
  return {
    ...clients,
    images: createImageProvider(config.generation),
    logoFetch: config.generation.logoFetch,
    video: config.video,
    secrets: createSecretBox(config.secrets.encryptionKey),
    social: createSocialConnectors(config.social),
    webhooks: config.webhooks,
    taskQueue: config.temporal.taskQueue,
  };
}

export type WorkerOptions = {
  connection: NativeConnection;
  config: Config;
  clients: ActivityClients;
  /** A prebuilt workflow bundle (`npm run build:workflows`); without one the worker bundles at start-up. */
  workflowBundlePath?: string | undefined;
  /** This process's tracing, when it is on (src/telemetry/start-tracing.ts). */
  tracing?: Tracing | undefined;
};

/** The worker of the task queue in `config`: every workflow and activity (the video worker serves encodes). */
export function createWorker({ connection, config, clients, workflowBundlePath = config.temporal.workflowBundle, tracing }: WorkerOptions): Promise<Worker> {
  return Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    activities: createActivities(activityDeps(config, clients)),
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
