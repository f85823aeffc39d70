import { parseEventNames } from '../../adapters/webhook-sender/event-names.ts';

/**
 * `events` in its stored form (`post.published,post.failed`): deduplicated, without spaces. openapi.yaml's pattern
 * for `events` admits only the known names (test/openapi/contract.test.ts keeps it in step with `eventTypes`), so
 * an unknown one never gets this far.
 */
export function normalizeEvents(events: string): string {
  return parseEventNames(events).join(',');
}
