import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { primaryKey } from './common-properties.ts';
import { PublishTarget } from './publish-target.ts';

/**
 * One post of a target's thread that the platform has, recorded as soon as it answered: a retry goes on from the
 * first part not recorded, replying to the recorded ones, so no part is posted twice. A single post is part 1.
 */
export const PublishTargetPart = defineEntity({
  name: 'PublishTargetPart',
  tableName: 'publish_target_parts',
  properties: {
    ...primaryKey,
    targetId: () => p.manyToOne(PublishTarget).mapToPk().fieldName('target_id').deleteRule('cascade'),
    /** From 1, in the thread's order. */
    part: p.integer(),
    externalPostId: p.text(),
    externalUrl: p.text().nullable(),
    /** What a reply to the part names besides its id, in the connector's words (Bluesky: the record's CID). */
    replyRef: p.text().nullable(),
    publishedAt: p.datetime(),
  },
  uniques: [{ properties: ['targetId', 'part'] }],
});
export type PublishTargetPart = InferEntity<typeof PublishTargetPart>;
