import { ApplicationFailure } from '@temporalio/common';
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { finalUnlessDependencyDown } from '../../activities/database-work.ts';
import { Workspace } from '../../src/adapters/database/entities/workspace.ts';
import { openDatabase } from '../../src/adapters/database/orm.ts';
import { WorkRefused } from '../../src/domain/work-refused.ts';
import { createWorkspace } from '../../src/domain/workspaces/create-workspace.ts';
import { closedPort } from '../fakes/closed-port.ts';
import { failureOf } from '../support/failure-of.ts';
import { useTestDatabase } from '../support/test-database.ts';
import { failureTypes } from '../../src/adapters/temporal/failure-types.ts';

// The rule behind the unbounded retries of database work, against a real PostgreSQL: only "the database is down"
// may be retried; bad data and bugs become final failures.

const database = useTestDatabase();

describe('finalUnlessDependencyDown', () => {
  it.each([
    ['a TypeError', () => Promise.resolve(new URL('https://').host), 'TypeError'],
    ['a RangeError', () => Promise.resolve(new Date(Number.NaN).toISOString()), 'RangeError'],
  ])('when the work throws %s, then the failure is final, typed from the table, and keeps the error as its cause', async (_case, work, name) => {
    const failure = await failureOf(finalUnlessDependencyDown(work), ApplicationFailure);
    expect(failure).toMatchObject({ type: failureTypes.unexpected, nonRetryable: true, cause: { name } });
  });

  it('when the work violates a constraint, then the failure is final', async () => {
    const { workspace } = await createWorkspace(database.orm, { name: 'Twice', plan: 'growth' });
    const failure = await failureOf(
      finalUnlessDependencyDown(async () => {
        const em = database.orm.em.fork();
        em.create(Workspace, { id: workspace.id, name: 'Again', plan: 'growth' });
        await em.flush();
      }),
    );
    expect(failure).toMatchObject({ type: failureTypes.unexpected, nonRetryable: true, cause: { name: 'UniqueConstraintViolationException' } });
  });

  it("when the domain refused the work, then the failure is final with the refusal's type and words", async () => {
    const failure = await failureOf(
      finalUnlessDependencyDown(() => Promise.reject(new WorkRefused(failureTypes.postDeleted, 'Post p was deleted while the work was running.'))),
      ApplicationFailure,
    );
    expect(failure).toMatchObject({ type: failureTypes.postDeleted, nonRetryable: true, message: 'Post p was deleted while the work was running.' });
  });

  it('when the work chose its own failure, then it passes unchanged', async () => {
    const own = ApplicationFailure.retryable('try later', 'Busy');
    expect(await failureOf(finalUnlessDependencyDown(() => Promise.reject(own)))).toBe(own);
  });

  it('when the database refuses or drops the connection, then the error stays retryable', async () => {
    const port = await closedPort();
    // Accepts and hangs up at once, as a server going away does.
    const dropping = createServer((socket) => socket.destroy());
    await new Promise<void>((resolveListen) => dropping.listen(0, '127.0.0.1', resolveListen));
    try {
      for (const url of [`postgres://nobody@127.0.0.1:${port}/none`, `postgres://nobody@127.0.0.1:${(dropping.address() as AddressInfo).port}/none`]) {
        const unreachable = await openDatabase(url);
        try {
          const failure = await failureOf(finalUnlessDependencyDown(() => unreachable.em.fork().count(Workspace, {})));
          expect(failure).toBeInstanceOf(Error);
          expect(failure).not.toBeInstanceOf(ApplicationFailure);
        } finally {
          await unreachable.close();
        }
      }
    } finally {
      await new Promise<void>((resolveClose) => dropping.close(() => resolveClose()));
    }
  });
});
