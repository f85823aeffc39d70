import type { CompiledWorkflowOptions, WorkflowClientInterceptor } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { currentRequestId } from '../telemetry/request-id-context.ts';
import { requestIdKey } from './request-id.ts';

/**
 * What every Temporal client of ours adds to the workflows it starts: the trace context (a header; a no-op while
 * tracing is off) and the id of the API request it starts them for (a memo, see request-id.ts).
 */
export function workflowClientInterceptors(): WorkflowClientInterceptor[] {
  return [new OpenTelemetryWorkflowClientInterceptor(), requestIdMemo];
}

const requestIdMemo: WorkflowClientInterceptor = {
  startWithDetails: (input, next) => next({ ...input, options: withRequestId(input.options) }),
  signalWithStart: (input, next) => next({ ...input, options: withRequestId(input.options) }),
  startUpdateWithStart: (input, next) => next({ ...input, workflowStartOptions: withRequestId(input.workflowStartOptions) }),
};

function withRequestId(options: CompiledWorkflowOptions): CompiledWorkflowOptions {
  const requestId = currentRequestId();
  return requestId ? { ...options, memo: { ...options.memo, [requestIdKey]: requestId } } : options;
}
