import { byId, disabling, element, formatTime } from './dom.js';
import { runAction } from './feedback.js';

/**
 * Settings, API keys: every key of the workspace, with a button that revokes it at once. Listing and revoking work on
 * every plan (the dashboard's own `/dashboard/api/api-keys`), so a workspace downgraded from Growth can still revoke
 * a leaked key; creating one needs Growth (the public `POST /api-keys`), and its secret is shown here once.
 *
 * @param {import('./api.js').Api} api
 * @param {AbortSignal} signal
 * @param {{ canCreateKeys: boolean }} workspace
 */
export function createSettings(api, signal, { canCreateKeys }) {
  const list = byId('api-key-list');
  const form = byId('new-api-key-form');
  const created = byId('new-api-key');
  form.hidden = !canCreateKeys;
  byId('api-keys-need-growth').hidden = canCreateKeys;
  created.hidden = true;

  async function load() {
    const { body: keys } = await api.get('/dashboard/api/api-keys');
    list.replaceChildren(...keys.map(keyItem));
    byId('no-api-keys').hidden = keys.length > 0;
  }

  function keyItem(key) {
    const state = key.isActive ? (key.expiresAt ? `expires ${formatTime(key.expiresAt)}` : 'active') : 'deactivated';
    const used = key.lastUsedAt ? `last used ${formatTime(key.lastUsedAt)}` : 'never used';
    const revoke = element('button', { type: 'button', 'aria-label': `Revoke ${key.name}` }, ['Revoke']);
    revoke.addEventListener(
      'click',
      () =>
        void runAction(`Revoking ${key.name}…`, disabling([revoke]), async () => {
          await api.delete(`/dashboard/api/api-keys/${key.id}`);
          await load();
          return `${key.name} was revoked: it no longer works.`;
        }),
      { signal },
    );
    return element('li', { class: 'api-key' }, [
      element('span', { class: 'api-key-name' }, [key.name]),
      element('code', {}, [`${key.keyPrefix}…`]),
      element('span', { class: 'hint' }, [`${state}; ${used}; created ${formatTime(key.createdAt)}`]),
      revoke,
    ]);
  }

  form.addEventListener(
    'submit',
    (event) => {
      event.preventDefault();
      const name = form.elements.name.value.trim();
      void runAction('Creating the key…', disabling(form.elements), async () => {
        const { body } = await api.post('/api/v1/api-keys', { name });
        byId('new-api-key-secret').textContent = body.key;
        created.hidden = false;
        form.reset();
        await load();
        return `${name} was created: copy its key now, it is shown only once.`;
      });
    },
    { signal },
  );

  return { load };
}
