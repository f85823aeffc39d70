import type { EventType } from '../database/entities/workspace-event.ts';

/** A webhook's `events` as a list: comma-separated in the API, in any order and spacing. */
export function parseEventNames(events: string): string[] {
  return [
    ...new Set(
      events
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean),
    ),
  ];
}

export function subscribesTo(events: string, type: EventType): boolean {
  return parseEventNames(events).includes(type);
}
