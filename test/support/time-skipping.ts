import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { inject } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { searchAttributes } from '../../src/temporal/search-attributes.ts';
import { installTemporalRuntime } from '../../worker/temporal-runtime.ts';
import { testLogLevel } from './test-config.ts';

/**
 * Temporal's time-skipping test server (Java, from Maven Central; launcher prepared by the global setup): timers
 * and retry backoffs complete at once. It knows no custom search attributes until told, so they are registered here.
 */
export async function startTimeSkippingEnvironment(): Promise<TestWorkflowEnvironment> {
  installTemporalRuntime(createLogger({ level: testLogLevel(), name: 'test' }));
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: inject('testServerLauncher') } },
  });
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(
      Object.values(searchAttributes).map(({ name }) => [name, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]),
    ),
  });
  return env;
}
