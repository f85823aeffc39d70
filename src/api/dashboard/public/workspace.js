import { byId, disabling } from './dom.js';
import { runAction } from './feedback.js';
import { createLibrary } from './library.js';
import { createPostEditor } from './post-editor.js';
import { createSettings } from './settings.js';

/**
 * The logged-in page: projects and posts on one side, the chosen post on the other, and Settings in place of both
 * when asked for. Everything it starts (listeners, polls) stops when `signal` aborts (log out).
 *
 * @param {import('./api.js').Api} api
 * @param {AbortSignal} signal
 * @param {{ features: { apiKeys: boolean } }} workspace `GET /workspace`'s answer
 */
export async function openWorkspace(api, signal, workspace) {
  const editor = createPostEditor(api, signal, { onPostChanged: (post, isOpen) => library.showPost(post, isOpen) });
  const library = createLibrary(api, signal, { onOpenPost: (postId) => editor.open(postId) });
  const settings = createSettings(api, signal, { canCreateKeys: workspace.features.apiKeys });
  showSettings(false);
  byId('show-settings').addEventListener(
    'click',
    () =>
      void runAction('Loading settings…', disabling([byId('show-settings')]), async () => {
        await settings.load();
        showSettings(true);
        byId('settings-heading').focus();
      }),
    { signal },
  );
  byId('hide-settings').addEventListener('click', () => showSettings(false), { signal });
  editor.clear();
  await library.load();
}

function showSettings(shown) {
  byId('settings').hidden = !shown;
  byId('workspace').hidden = shown;
}
