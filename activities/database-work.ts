import { ApplicationFailure } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Database } from '../src/adapters/database/orm.ts';
import { WorkRefused } from '../src/domain/work-refused.ts';
import { errorOf } from '../src/common/errors/caught.ts';
import { failureTypes } from '../src/adapters/temporal/failure-types.ts';
import { isDependencyDown } from './dependency-down.ts';
import { asTemporalFailure } from './temporal-failure.ts';

/**
 * The boundary of an activity that works on our own database (workflows retry it without limit, see
 * workflows/contracts/activity-options.ts): a dependency that is down stays retryable; work the domain refused is
 * final with its own failure type; any other error is final too, so bad data or a bug fails the workflow visibly at
 * once instead of retrying for ever. A failure the activity chose itself (ApplicationFailure) passes as it is.
 */
export async function finalUnlessDependencyDown<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApplicationFailure || isDependencyDown(error)) throw error;
    if (error instanceof WorkRefused) throw asTemporalFailure(error);
    const cause = errorOf(error);
    throw ApplicationFailure.create({ message: cause.message, type: failureTypes.unexpected, nonRetryable: true, cause });
  }
}

/** A domain change that takes several statements, in one transaction of its own, behind the boundary above. */
export function inTransaction<T>(orm: Database, change: (em: EntityManager) => Promise<T>): Promise<T> {
  return finalUnlessDependencyDown(() => orm.em.fork().transactional(change));
}

/** A domain change made in one statement (atomic by itself, so no transaction), behind the boundary above. */
export function inOneStatement<T>(orm: Database, change: (em: EntityManager) => Promise<T>): Promise<T> {
  return finalUnlessDependencyDown(() => change(orm.em.fork()));
}
