import { byId, element, formatTime } from './dom.js';

// The service pages versions; a post with more than this many shows its newest ones.
const shownVersions = 100;

/**
 * The post's versions, newest first, each with its image and a button to restore it.
 *
 * @param {import('./api.js').Api} api
 * @param {AbortSignal} signal
 * @param {{ onRestore(version: any): Promise<void> }} handlers
 */
export function createVersionList(api, signal, { onRestore }) {
  const list = byId('version-list');
  let shownPostId = null;

  function item(version) {
    const restore = element('button', { type: 'button' }, [`Restore version ${version.versionNumber}`]);
    restore.addEventListener('click', () => void onRestore(version), { signal });
    return element('li', { class: 'version' }, [
      element('img', { src: version.imageUrl, alt: '', width: 72, height: 72, loading: 'lazy' }),
      element('span', { class: 'version-text' }, [
        element('strong', {}, [`Version ${version.versionNumber}`]),
        ` · ${version.kind} · ${formatTime(version.createdAt)}`,
        element('span', { class: 'version-label' }, [version.label]),
      ]),
      restore,
    ]);
  }

  return {
    async load(postId) {
      shownPostId = postId;
      const { body, next } = await api.get(`/api/v1/posts/${postId}/versions?pageSize=${shownVersions}`);
      if (shownPostId !== postId) return;
      list.replaceChildren(...body.map(item));
      const none = byId('no-versions');
      none.hidden = body.length > 0 && !next;
      none.textContent = next ? `Only the ${shownVersions} newest versions are shown.` : 'No versions yet.';
    },
  };
}
