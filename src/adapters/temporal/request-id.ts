import { defaultPayloadConverter, type Headers } from '@temporalio/common';

// The id of the API request that started a workflow (its X-Request-Id): a memo of the run, shown in the Temporal UI,
// and a header on each activity it schedules (activities cannot read the memo). Workflow code imports this file.
export const requestIdKey = 'requestId';

export function requestIdHeader(requestId: string): Headers {
  return { [requestIdKey]: defaultPayloadConverter.toPayload(requestId) };
}

export function requestIdOf(headers: Headers): string | undefined {
  const payload = headers[requestIdKey];
  return payload ? defaultPayloadConverter.fromPayload<string>(payload) : undefined;
}
