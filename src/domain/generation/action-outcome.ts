import type { PostRecord } from '../posts/read-post.ts';
import type { Outcome } from '../../adapters/temporal/workflow-gateway.ts';

/** What an action that runs a workflow answers: its outcome, with the post as it is now (done, or while the workflow goes on). */
export type ActionOutcome<T> = Outcome<T> & { post: PostRecord };
