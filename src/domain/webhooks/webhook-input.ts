import { eventTypes } from '../../data/entities/workspace-event.ts';
import { AppError } from '../../errors/app-error.ts';
import { parseEventNames, unknownEventNames } from '../../webhooks/event-names.ts';

/** `events` in its stored form (`post.published,post.failed`); unknown or no names answer 400 naming them. */
export function normalizeEvents(events: string): string {
  const names = parseEventNames(events);
  const unknown = unknownEventNames(names);
  if (names.length > 0 && unknown.length === 0) return names.join(',');
  const detail = names.length === 0 ? 'events names no event' : `unknown event name(s): ${unknown.join(', ')}`;
  throw new AppError('validation-failed', `${detail}; known events are ${eventTypes.join(', ')}.`, {
    errors: [{ location: 'body', path: '/events', message: detail }],
  });
}
