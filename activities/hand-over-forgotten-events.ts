import { log } from '@temporalio/activity';
import { messageOf } from '../src/common/errors/caught.ts';
import { handOverForgottenEvents as handOverPage } from '../src/domain/events/hand-over-forgotten-events.ts';
import type { Deps } from '../src/domain/deps.ts';
import type { SweptPage } from '../workflows/contracts/sweep-events.ts';
import { isDependencyDown } from './dependency-down.ts';

/**
 * One page of the event sweep. Temporal or the database down fails the page, to be tried again (what was handed
 * over stays so); an event refused for any other reason is logged and left to the next sweep, never holding up
 * the events after it.
 */
export async function handOverForgottenEvents(deps: Deps, input: { afterId?: string }): Promise<SweptPage> {
  const page = await handOverPage(deps, input);
  const down = page.failed.find(({ error }) => isDependencyDown(error));
  if (down) throw down.error;
  for (const { eventId, error } of page.failed)
    log.warn('the event could not be handed to its delivery; the next sweep tries again', { eventId, error: messageOf(error) });
  if (page.handedOver.length > 0) log.info('events handed over by the sweep', { eventIds: page.handedOver });
  return { handedOver: page.handedOver.length, ...(page.nextAfterId ? { nextAfterId: page.nextAfterId } : {}) };
}
