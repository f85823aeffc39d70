import { createLibrary } from './library.js';
import { createPostEditor } from './post-editor.js';

/**
 * The logged-in page: projects and posts on one side, the chosen post on the other. Everything it starts
 * (listeners, polls) stops when `signal` aborts (log out).
 *
 * @param {import('./api.js').Api} api
 * @param {AbortSignal} signal
 */
export async function openWorkspace(api, signal) {
  const editor = createPostEditor(api, signal, { onPostChanged: (post, isOpen) => library.showPost(post, isOpen) });
  const library = createLibrary(api, signal, { onOpenPost: (postId) => editor.open(postId) });
  editor.clear();
  await library.load();
}
