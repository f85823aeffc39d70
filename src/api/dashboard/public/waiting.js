/** Resolves after `ms` milliseconds. */
export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls the post until `isDone(post)` holds, for actions the service answered 202 (still running): generate and
 * render finish when `updatedAt` moves or the post fails, publish when the post is published.
 *
 * @param {import('./api.js').Api} api
 * @param {string} postId
 * @param {(post: any) => boolean} isDone
 * @param {AbortSignal} signal stops waiting (log out)
 */
export async function waitForPost(api, postId, isDone, signal) {
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    await sleep(1000);
    signal.throwIfAborted();
    const { body: post } = await api.get(`/api/v1/posts/${postId}`);
    if (isDone(post)) return post;
    if (Date.now() > deadline) throw new Error('This is taking longer than ten minutes: reload the post later to see how it ended.');
  }
}
