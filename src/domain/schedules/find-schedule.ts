import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { Schedule } from '../../adapters/database/entities/schedule.ts';
import { notFound } from '../../common/errors/app-error.ts';

export async function findSchedule(em: EntityManager, workspaceId: string, id: string, options: { lock?: boolean } = {}): Promise<Schedule> {
  const schedule = await em.findOne(Schedule, { id, workspaceId }, options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!schedule) throw notFound(`Schedule ${id}`);
  return schedule;
}
