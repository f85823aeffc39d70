import { log } from '@temporalio/workflow';
import { failureChainOf, failureReasonOf } from '../src/adapters/temporal/failure-reasons.ts';

/**
 * What the client reads of `failure` (src/adapters/temporal/failure-reasons.ts), once what the failure itself said is in the
 * log for the operator: a workflow's log line carries its workflow id and the id of the request that started it.
 */
export function failureReasonFor(failure: unknown, work: string): string {
  const reason = failureReasonOf(failure);
  log.warn(`${work} failed`, { failure: failureChainOf(failure), reason });
  return reason;
}
