import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAndUpdatedAt, primaryKey } from './common-properties.ts';
import { belongsToWorkspace } from './workspace.ts';

/**
 * Recurring generation: the database holds what the customer asked for and what its runs did; the Temporal Schedule
 * `schedule-<id>` is what runs it. The reconcile step keeps the two in agreement.
 */
export const Schedule = defineEntity({
  name: 'Schedule',
  tableName: 'schedules',
  properties: {
    ...primaryKey,
    ...belongsToWorkspace,
    name: p.string().length(100),
    /** Five fields, UTC. */
    cronExpression: p.string().length(100),
    promptTemplate: p.text().nullable(),
    /** No foreign keys: a deleted project or brand kit must make runs fail visibly, not vanish from the schedule. */
    projectId: p.uuid().nullable(),
    brandKitId: p.uuid().nullable(),
    isActive: p.boolean().default(true),
    /** The firing time of the last run that finished (see recordScheduleRun); null before the first. */
    lastRunAt: p.datetime().nullable(),
    /** Why the last run failed (project deleted or archived...); null after a successful run. */
    lastRunError: p.text().nullable(),
    ...createdAndUpdatedAt,
  },
  indexes: [{ properties: ['workspaceId', 'createdAt'] }],
});
export type Schedule = InferEntity<typeof Schedule>;
