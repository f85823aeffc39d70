import { WorkspaceEvent } from '../../adapters/database/entities/workspace-event.ts';
import type { Deps } from '../deps.ts';
import { handOverEvent } from './hand-over-event.ts';

/** Events handed over side by side in one page of the sweep: each is a read, a start on Temporal and an update. */
const sweepPageSize = 50;

export type ForgottenEventsPage = {
  /** The events of the page now handed over. */
  handedOver: string[];
  /** The events whose hand-over failed, with why: left waiting for the next sweep. */
  failed: Array<{ eventId: string; error: unknown }>;
  /** Where the next page starts, when this one was full. */
  nextAfterId?: string;
};

/**
 * One page of the event sweep: the events, oldest first after `afterId`, that nobody has handed to their delivery
 * `deps.webhooks.sweepAfterMs` after they were recorded, each handed over now. Their recorder normally does that
 * at once (the workflow that recorded the event, or the api after its commit); this catches what an outage or a
 * crash between the commit and the hand-over left behind, so every event recorded is delivered. One that is
 * handed over by both starts one delivery (see handOverEvent). The grace keeps the sweep off the events whose
 * recorder is still at it.
 */
export async function handOverForgottenEvents(
  deps: Pick<Deps, 'orm' | 'temporal' | 'taskQueue' | 'webhooks'>,
  { afterId }: { afterId?: string },
): Promise<ForgottenEventsPage> {
  const waiting = await deps.orm.em
    .fork()
    .find(
      WorkspaceEvent,
      { handedOverAt: null, createdAt: { $lt: new Date(Date.now() - deps.webhooks.sweepAfterMs) }, ...(afterId ? { id: { $gt: afterId } } : {}) },
      { fields: ['id'], orderBy: { id: 'asc' }, limit: sweepPageSize },
    );
  const ids = waiting.map((event) => event.id);
  const outcomes = await Promise.allSettled(ids.map((eventId) => handOverEvent(deps, eventId)));
  const page: ForgottenEventsPage = { handedOver: [], failed: [] };
  outcomes.forEach((outcome, index) => {
    if (outcome.status === 'fulfilled') page.handedOver.push(ids[index]!);
    else page.failed.push({ eventId: ids[index]!, error: outcome.reason });
  });
  if (ids.length === sweepPageSize) page.nextAfterId = ids.at(-1)!;
  return page;
}
