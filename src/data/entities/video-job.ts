import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { postFormats, type PostFormat } from '../../images/post-formats.ts';
import { newId } from '../new-id.ts';
import { Post } from './post.ts';
import { Workspace } from './workspace.ts';

/**
 * A video started from the dashboard. The id is also the id of the workflow that makes it, which is where its
 * status and progress are read from; this row is what scopes the job to a workspace and keeps the finished video.
 */
export const VideoJob = defineEntity({
  name: 'VideoJob',
  tableName: 'video_jobs',
  properties: {
    id: p.uuid().primary().onCreate(() => newId()),
    workspaceId: () => p.manyToOne(Workspace).mapToPk().fieldName('workspace_id').deleteRule('cascade'),
    postId: () => p.manyToOne(Post).mapToPk().fieldName('post_id').deleteRule('cascade'),
    /** The post's format when the job started: the video's frame size. */
    format: p.enum(Object.keys(postFormats) as PostFormat[]),
    /** Set when the video is saved; the post's latest video is its newest job with one. */
    videoKey: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    completedAt: p.datetime().nullable(),
  },
  indexes: [{ properties: ['postId', 'createdAt'] }],
});
export type VideoJob = InferEntity<typeof VideoJob>;
