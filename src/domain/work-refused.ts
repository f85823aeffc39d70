import type { FailureType } from '../adapters/temporal/failure-types.ts';

/**
 * Work a workflow asked of the domain that cannot be done, and will not be on any retry: what it was about was
 * deleted meanwhile (a post, a schedule, a social connection), or it cannot go on as asked (stored bytes expired, no
 * artwork yet). The activity that calls the domain function fails its workflow for good with `failureType` (from the
 * one table, so the workflows and the api that match on it never depend on this class's name) and the message as
 * the reason the user sees.
 */
export class WorkRefused extends Error {
  readonly failureType: FailureType;
  constructor(failureType: FailureType, message: string) {
    super(message);
    this.name = 'WorkRefused';
    this.failureType = failureType;
  }
}
