import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { OrphanedObject } from '../../../src/adapters/database/entities/orphaned-object.ts';
import { recordOrphanedObjects } from '../../../src/domain/storage/orphaned-objects.ts';
import { useTestDatabase } from '../../support/test-database.ts';

// Two changes can orphan the same object: a post deleted while its project is. Each records its keys in its own
// transaction; the key is listed once, and neither change fails on it.

const database = useTestDatabase();

describe('recording orphaned objects', () => {
  it('when a key is already listed by another change, then it stays listed once, in the first batch, and the second change commits', async () => {
    const shared = `orphans/${randomBytes(6).toString('hex')}.png`;
    const own = `orphans/${randomBytes(6).toString('hex')}.png`;
    const first = await database.orm.em.fork().transactional((em) => recordOrphanedObjects(em, { keys: [shared], reason: 'post deleted', workspaceId: 'w' }));
    const second = await database.orm.em
      .fork()
      .transactional((em) => recordOrphanedObjects(em, { keys: [shared, own], reason: 'project deleted', workspaceId: 'w' }));

    const rows = await database.orm.em.fork().find(OrphanedObject, { objectKey: { $in: [shared, own] } }, { orderBy: { objectKey: 'asc' } });
    expect(rows.map((row) => [row.objectKey, row.batchId])).toEqual(
      [
        [shared, first!.batchId],
        [own, second!.batchId],
      ].sort(([a], [b]) => a!.localeCompare(b!)),
    );
  });
});
