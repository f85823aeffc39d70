// Not a workflow: the interceptors every workflow runs with, bundled with them (worker/create-worker.ts).
import type { OpenTelemetrySinks, SerializableSpan } from '@temporalio/interceptors-opentelemetry';
import { ContinueAsNew, defaultPayloadConverter, proxySinks, workflowInfo, type Headers, type WorkflowInterceptors } from '@temporalio/workflow';
import { messageOf } from '../src/common/errors/caught.ts';
import { requestIdHeader, requestIdKey } from '../src/adapters/temporal/request-id.ts';

// The header @temporalio/interceptors-opentelemetry propagates W3C trace context in (its client and activity
// interceptors read and write it), holding `{ traceparent }`.
const traceHeader = '_tracer-data';
const traceparentPattern = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

type RunSpan = { traceId: string; spanId: string; parentSpanId?: string; sampled: boolean; startMs: number };

/**
 * One span per run, `RunWorkflow:<type>`, child of the span that started it (the api's request, a parent workflow),
 * whose context every activity and child workflow it starts carries on; and the id of the API request that started
 * the run (its memo) on every workflow log line, on the span and, as a header, on each activity.
 *
 * Not the package's own workflow interceptors: they draw span ids from the workflow's seeded random numbers, which
 * shifts every later `uuid4()` of a run, so runs begun before them stop replaying (scheduledGeneration does). The
 * run's span ids come from its run id instead: the same on every replay, drawn from nothing else. Nothing here adds
 * a command, and the span leaves through the worker's `exporter` sink, which is not called during replay.
 */
export function interceptors(): WorkflowInterceptors {
  let run: RunSpan | undefined;
  const carried = (headers: Headers): Headers => {
    const requestId = startingRequestId();
    return {
      ...headers,
      ...(run && { [traceHeader]: defaultPayloadConverter.toPayload({ traceparent: `00-${run.traceId}-${run.spanId}-${run.sampled ? '01' : '00'}` }) }),
      ...(requestId && requestIdHeader(requestId)),
    };
  };
  return {
    inbound: [
      {
        async execute(input, next) {
          run = runSpanOf(input.headers);
          try {
            const result = await next(input);
            exportRunSpan(run, { code: 1 });
            return result;
          } catch (error) {
            exportRunSpan(run, error instanceof ContinueAsNew ? { code: 1 } : { code: 2, message: messageOf(error) });
            throw error;
          }
        },
      },
    ],
    outbound: [
      {
        getLogAttributes(input, next) {
          const requestId = startingRequestId();
          return next(requestId ? { ...input, [requestIdKey]: requestId } : input);
        },
        scheduleActivity: (input, next) => next({ ...input, headers: carried(input.headers) }),
        scheduleLocalActivity: (input, next) => next({ ...input, headers: carried(input.headers) }),
        startChildWorkflowExecution: (input, next) => next({ ...input, headers: carried(input.headers) }),
      },
    ],
  };
}

function startingRequestId(): string | undefined {
  const requestId = workflowInfo().memo?.[requestIdKey];
  return typeof requestId === 'string' ? requestId : undefined;
}

function runSpanOf(headers: Headers): RunSpan {
  const runHex = workflowInfo().runId.replace(/-/g, '');
  const spanId = runHex.slice(16);
  const payload = headers[traceHeader];
  const carrier = payload ? defaultPayloadConverter.fromPayload<{ traceparent?: string }>(payload) : {};
  const parent = traceparentPattern.exec(carrier.traceparent ?? '');
  if (!parent) return { traceId: runHex, spanId, sampled: true, startMs: Date.now() };
  return { traceId: parent[1]!, spanId, parentSpanId: parent[2]!, sampled: (parseInt(parent[3]!, 16) & 1) === 1, startMs: Date.now() };
}

function exportRunSpan(run: RunSpan, status: SerializableSpan['status']): void {
  if (!run.sampled) return;
  const info = workflowInfo();
  const endMs = Date.now();
  const requestId = startingRequestId();
  proxySinks<OpenTelemetrySinks>().exporter.export([
    {
      name: `RunWorkflow:${info.workflowType}`,
      kind: 0, // INTERNAL, as the package's own workflow span
      spanContext: { traceId: run.traceId, spanId: run.spanId, traceFlags: 1 },
      ...(run.parentSpanId && { parentSpanId: run.parentSpanId }),
      startTime: hrTime(run.startMs),
      endTime: hrTime(endMs),
      duration: hrTime(endMs - run.startMs),
      status,
      attributes: { temporalWorkflowId: info.workflowId, run_id: info.runId, ...(requestId && { [requestIdKey]: requestId }) },
      links: [],
      events: [],
      ended: true,
      droppedAttributesCount: 0,
      droppedLinksCount: 0,
      droppedEventsCount: 0,
      instrumentationLibrary: { name: 'content-service-workflows' },
    },
  ]);
}

function hrTime(ms: number): [number, number] {
  return [Math.floor(ms / 1000), (ms % 1000) * 1e6];
}
