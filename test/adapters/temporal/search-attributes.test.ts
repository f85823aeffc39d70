import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureSearchAttributes } from '../../../src/adapters/temporal/ensure-search-attributes.ts';
import { searchAttributes } from '../../../src/adapters/temporal/search-attributes.ts';
import { eventually } from '../../support/eventually.ts';
import { infrastructure } from '../../support/infrastructure.ts';

// The worker's start-up step against the run's dev server: a namespace of this test's own (the shared `default`
// one already has the attributes), and one that does not exist, where creating them fails the way a namespace this
// worker may not administer does.

let connection: Connection;
beforeAll(async () => {
  connection = await Connection.connect({ address: infrastructure.temporalAddress });
});
afterAll(() => connection?.close());

describe('search attributes at worker start-up', () => {
  it('when the namespace lacks them, then they are created as Keyword, and a second start creates nothing', { timeout: 60_000 }, async () => {
    const namespace = await newNamespace('search-attributes');
    const created = await ensureSearchAttributes(connection, namespace);
    const names = Object.values(searchAttributes).map(({ name }) => name);
    expect(created.toSorted()).toEqual(names.toSorted());
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
    for (const name of names) expect(customAttributes?.[name]).toBe(2); // INDEXED_VALUE_TYPE_KEYWORD
    expect(await ensureSearchAttributes(connection, namespace)).toEqual([]);
  });

  it('when they cannot be created, then the error names the command an operator must run (the worker logs it and starts)', { timeout: 60_000 }, async () => {
    // The dev server's visibility store has ten Keyword slots per namespace: with all of them taken, creating fails
    // as it does where the worker may not administer the namespace.
    const namespace = await newNamespace('full');
    const fillers = Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`filler${index}`, 2]));
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: fillers });
    await expect(ensureSearchAttributes(connection, namespace)).rejects.toThrow(
      new RegExp(
        `lacks the search attributes workspaceId, projectId, postId .*temporal operator search-attribute create --namespace ${namespace} --name workspaceId --type Keyword`,
      ),
    );
  });

  it('when the namespace does not exist, then the error names it', async () => {
    await expect(ensureSearchAttributes(connection, 'no-such-namespace')).rejects.toThrow(/namespace "no-such-namespace" .*check TEMPORAL_NAMESPACE/);
  });
});

/** A namespace of this test's own, once the server's namespace cache knows it. */
async function newNamespace(prefix: string): Promise<string> {
  const namespace = `${prefix}-${randomBytes(4).toString('hex')}`;
  await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  await eventually(() => connection.operatorService.listSearchAttributes({ namespace }), 30_000);
  return namespace;
}
