import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { allPostFormats } from '../../artwork/post-formats.ts';
import { createdAt, primaryKey } from './common-properties.ts';
import { belongsToPost } from './post.ts';
import { belongsToWorkspace } from './workspace.ts';

/** Where a job stands in our record: `queued` and `running` are asked of its workflow; the others are final. */
const videoJobStatuses = ['queued', 'running', 'done', 'failed', 'cancelled'] as const;

/**
 * A video started from the dashboard. The id is also the id of the workflow that makes it. The workflow writes how
 * the job ended here (through its activities), so a finished job is answered from this row alone, also after
 * Temporal has dropped the workflow's history; while it runs, its live progress is read from the workflow. The row
 * also scopes the job to a workspace and keeps the finished video.
 */
export const VideoJob = defineEntity({
  name: 'VideoJob',
  tableName: 'video_jobs',
  properties: {
    ...primaryKey,
    ...belongsToWorkspace,
    ...belongsToPost,
    /** The post's format when the job started: the video's frame size. */
    format: p.enum(allPostFormats),
    /** Set when the video is saved; the post's latest video is its newest job with one. */
    videoKey: p.text().nullable(),
    /** The saved video's size and length (absent from jobs saved before they were kept: read from storage, and 6 s). */
    videoBytes: p.integer().nullable(),
    durationMs: p.integer().nullable(),
    status: p.enum([...videoJobStatuses]).default('queued'),
    /** 0 to 100, recorded by the encoding in 10% steps and 100 once done (live progress is the heartbeat). */
    progress: p.integer().default(0),
    /** Why the job failed, in words. */
    error: p.text().nullable(),
    ...createdAt,
    /** When the job ended: done, failed or cancelled. */
    completedAt: p.datetime().nullable(),
  },
  indexes: [
    { properties: ['postId', 'createdAt'] },
    // The videos a workspace has being made, counted against its plan at every start (few rows: the unfinished ones).
    {
      name: 'video_jobs_workspace_unfinished_index',
      expression: `create index "video_jobs_workspace_unfinished_index" on "video_jobs" ("workspace_id") where "status" in ('queued', 'running')`,
    },
  ],
});
export type VideoJob = InferEntity<typeof VideoJob>;
