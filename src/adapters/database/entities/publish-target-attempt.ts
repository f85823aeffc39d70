import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { primaryKey } from './common-properties.ts';
import { PublishTarget } from './publish-target.ts';
import type { ServerAnswer } from '../../social/social-connector.ts';

/**
 * How one attempt to publish to a platform ended, as the client reads it on the target: `unknown` when the post was
 * sent and no answer came (the next attempt looks it up before sending again); `processing` when the platform has
 * the media and is processing it (the next attempt goes on from there once it has).
 */
const publishAttemptOutcomes = ['published', 'refused', 'rate_limited', 'unavailable', 'unknown', 'processing'] as const;
export type PublishAttemptOutcome = (typeof publishAttemptOutcomes)[number];

/** One attempt (one Temporal activity attempt) to publish one target, or one part of a thread: the log a client reads to see what happened. */
export const PublishTargetAttempt = defineEntity({
  name: 'PublishTargetAttempt',
  tableName: 'publish_target_attempts',
  properties: {
    ...primaryKey,
    targetId: () => p.manyToOne(PublishTarget).mapToPk().fieldName('target_id').deleteRule('cascade'),
    /** Temporal's attempt number (from 1), bounded by the activity's retry policy. */
    attempt: p.integer(),
    /** Which part of a thread the attempt posted (from 1); 1 for a single post. Each part is an attempt of its own. */
    part: p.integer().default(1),
    attemptedAt: p.datetime(),
    outcome: p.enum(publishAttemptOutcomes),
    /** A sentence for the client, never a token or the platform's raw answer (see attempt-outcome.ts). */
    detail: p.text(),
    /** When the next attempt is due; null when none follows. */
    nextAttemptAt: p.datetime().nullable(),
    /** Each server's answer where the post went to several at once (Nostr relays); null elsewhere. */
    answers: p.json<ServerAnswer[]>().nullable(),
  },
  // A retried activity, or one that records the same attempt of a part twice, keeps its first record.
  uniques: [{ properties: ['targetId', 'attempt', 'part'] }],
});
export type PublishTargetAttempt = InferEntity<typeof PublishTargetAttempt>;
