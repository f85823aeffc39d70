import { OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } from '@temporalio/interceptors-opentelemetry';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { trace } from '@opentelemetry/api';
import { requestIdKey, requestIdOf } from '../src/adapters/temporal/request-id.ts';
import { currentRequestId, runForRequest } from '../src/adapters/telemetry/request-id-context.ts';

/**
 * Each activity runs in the span its workflow started (a no-op while tracing is off) and on behalf of the API
 * request that started the workflow, whose id its log lines and span carry, and which the workflows it starts
 * record in turn. The SDK adds workflowId, workflowRunId, activityType and attempt to the activity's log lines.
 */
export const activityInterceptors: ActivityInterceptorsFactory[] = [
  (ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) }),
  () => ({
    inbound: {
      execute(input, next) {
        const requestId = requestIdOf(input.headers);
        if (!requestId) return next(input);
        trace.getActiveSpan()?.setAttribute(requestIdKey, requestId);
        return runForRequest(requestId, () => next(input));
      },
    },
    outbound: {
      getLogAttributes(input, next) {
        const requestId = currentRequestId();
        return next(requestId ? { ...input, [requestIdKey]: requestId } : input);
      },
    },
  }),
];
