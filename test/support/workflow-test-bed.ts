import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import type { Activities } from '../../activities/activity-signatures.ts';
import { createActivities } from '../../activities/index.ts';
import type { Config } from '../../src/config.ts';
import type { Clients } from '../../src/domain/deps.ts';
import { openDatabase, type Database } from '../../src/adapters/database/orm.ts';
import { createLogger } from '../../src/logger.ts';
import { assembleDeps } from '../../src/services.ts';
import { createStorage } from '../../src/adapters/object-storage/create-storage.ts';
import type { ObjectStorage } from '../../src/adapters/object-storage/object-storage.ts';
import { searchAttributes } from '../../src/adapters/temporal/search-attributes.ts';
import { taskQueues } from '../../src/adapters/temporal/task-queues.ts';
import { activityInterceptors } from '../../worker/activity-interceptors.ts';
import { workflowSpanSink } from '../../worker/workflow-span-sink.ts';
import { testConfig } from './test-config.ts';
import { createTestDatabase } from './test-database.ts';
import { infrastructure } from './infrastructure.ts';

export type WorkflowTestBed = {
  /** Temporal's time-skipping test server: timers and retry backoffs complete at once; read time with currentTimeMs. */
  env: TestWorkflowEnvironment;
  client: Client;
  orm: Database;
  storage: ObjectStorage;
  /** Its own database, storage directory and task queue (`config.temporal.taskQueue`, where activities start workflows). */
  config: Config;
  taskQueue: string;
  /** The real activities, as the worker builds them (createActivities over assembleDeps, src/services.ts), with any client replaced. */
  activities(replace?: Partial<Clients>): Activities;
  /**
   * Runs `work` while a worker on a task queue of its own (given to `work`) runs the real workflow bundle with
   * `activities`: the real ones, or stubs typed by the real ones for tests of a workflow's branches.
   */
  runWith<T>(activities: Partial<Activities>, work: (taskQueue: string) => Promise<T>): Promise<T>;
  /** Runs a worker with the real activities on `taskQueue` until stop(): for files whose every test uses it. */
  startWorker(): Promise<void>;
  stop(): Promise<void>;
};

/**
 * What a workflow test file runs on: the time-skipping server, a database of its own (cloned from the migrated
 * template), filesystem storage, and workers with the prebuilt workflow bundle (the one the replay tests use).
 * `env` overrides configuration (e.g. the Stability AI fake's URL).
 */
export async function startWorkflowTestBed(env: Record<string, string> = {}): Promise<WorkflowTestBed> {
  const logger = createLogger({ level: 'silent', name: 'test' });
  const database = await createTestDatabase();
  const orm = await openDatabase(database.url);
  const config = testConfig(database.url, { TEMPORAL_TASK_QUEUE: uniqueTaskQueue(), ...env });
  const storage = createStorage(config.storage, () => 'http://test');
  // Last, so that nothing after it can fail and leave the server running.
  const temporal = await startTimeSkippingServer();
  const clients: Clients = { orm, storage, logger, temporal: temporal.client };
  let fileWorker: { worker: Worker; running: Promise<void> } | undefined;

  const activities = (replace: Partial<Clients> = {}) => createActivities(assembleDeps(config, { ...clients, ...replace }));
  const createWorker = (taskQueue: string, workerActivities: Partial<Activities>) =>
    Worker.create({
      connection: temporal.nativeConnection,
      namespace: config.temporal.namespace,
      taskQueue,
      workflowBundle: { codePath: infrastructure.workflowBundlePath },
      activities: workerActivities,
      interceptors: { activity: activityInterceptors },
      sinks: workflowSpanSink(),
    });

  return {
    env: temporal,
    client: temporal.client,
    orm,
    storage,
    config,
    taskQueue: config.temporal.taskQueue,
    activities,
    async runWith(workerActivities, work) {
      const taskQueue = uniqueTaskQueue();
      const worker = await createWorker(taskQueue, workerActivities);
      // Deliveries to slow receivers go to their own queue (see taskQueues): the same stubs serve it.
      const slowWebhooks = await Worker.create({
        connection: temporal.nativeConnection,
        namespace: config.temporal.namespace,
        taskQueue: taskQueues.slowWebhooks(taskQueue),
        activities: workerActivities,
        interceptors: { activity: activityInterceptors },
      });
      return slowWebhooks.runUntil(worker.runUntil(work(taskQueue)));
    },
    async startWorker() {
      const worker = await createWorker(config.temporal.taskQueue, activities());
      fileWorker = { worker, running: worker.run() };
    },
    async stop() {
      fileWorker?.worker.shutdown();
      await fileWorker?.running;
      await temporal.teardown();
      await orm.close();
      await database.drop();
      rmSync(config.storage.directory, { recursive: true, force: true });
    },
  };
}

/**
 * The time-skipping server (Java, launcher prepared by the global setup). It knows no custom search attributes and
 * cannot list them (so the worker's ensureSearchAttributes does not work there): they are registered here.
 */
async function startTimeSkippingServer(): Promise<TestWorkflowEnvironment> {
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: infrastructure.testServerLauncher } },
  });
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(
      Object.values(searchAttributes).map(({ name }) => [name, proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]),
    ),
  });
  return env;
}

function uniqueTaskQueue(): string {
  return `workflow-test-${randomBytes(4).toString('hex')}`;
}
