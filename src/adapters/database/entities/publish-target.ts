import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { socialPlatforms } from '../../social/social-connector.ts';
import { createdAndUpdatedAt, primaryKey } from './common-properties.ts';
import { belongsToPost } from './post.ts';

const publishTargetStatuses = ['Pending', 'Scheduled', 'Publishing', 'Published', 'Failed', 'Cancelled'] as const;

/** The publication of one post to one social connection, and how it went. */
export const PublishTarget = defineEntity({
  name: 'PublishTarget',
  tableName: 'publish_targets',
  properties: {
    ...primaryKey,
    ...belongsToPost,
    /** The connection (no foreign key: the record of what was published outlives a deleted connection). */
    connectionId: p.uuid(),
    platform: p.enum(socialPlatforms),
    /** The publication (workflow run) the target belongs to. */
    publicationId: p.string().length(100),
    status: p.enum(publishTargetStatuses),
    externalPostId: p.text().nullable(),
    externalUrl: p.text().nullable(),
    errorMessage: p.text().nullable(),
    /** Sent to the platform with every attempt, so a retry never posts twice. */
    idempotencyKey: p.uuid().unique(),
    /** What the client asked this connection to be sent instead of the post's title and prompt (`overrides`). */
    textOverride: p.text().nullable(),
    altTextOverride: p.text().nullable(),
    /**
     * What goes with the text: as the client asked (`media`; null: the video where the post has one and the platform
     * takes video, else the image), then, from the target's first attempt, what was chosen, so every later attempt
     * sends the same.
     */
    media: p.enum(['image', 'video'] as const).nullable(),
    /** The video chosen at the first attempt (its storage key): a video finished meanwhile does not replace it. */
    videoKey: p.text().nullable(),
    /** Whether a text longer than the platform takes is posted as a thread of parts (`thread: true`) instead of shortened. */
    thread: p.boolean().default(false),
    scheduledAt: p.datetime().nullable(),
    publishedAt: p.datetime().nullable(),
    ...createdAndUpdatedAt,
  },
  indexes: [{ properties: ['postId', 'createdAt'] }],
  uniques: [{ properties: ['publicationId', 'connectionId'] }],
});
export type PublishTarget = InferEntity<typeof PublishTarget>;
