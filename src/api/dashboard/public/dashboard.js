import { ApiError, createApi } from './api.js';
import { byId, disabling } from './dom.js';
import { announce, runAction, showError } from './feedback.js';
import { openWorkspace } from './workspace.js';
import { forgetKey, rememberKey, storedKey } from './session.js';

/** Aborting it ends what the logged-in workspace runs (listeners, polls); null while logged out. */
let session = null;

/** Checks the key with `GET /workspace` (401 stays on the form with the service's reason), then opens the editor. */
async function logIn(key) {
  const { body: workspace } = await createApi(key).get('/api/v1/workspace');
  rememberKey(key);
  byId('workspace-name').textContent = `${workspace.name} (${workspace.plan} plan)`;
  byId('login').hidden = true;
  byId('session').hidden = false;
  byId('workspace').hidden = false;
  const api = createApi(key, (error) => {
    // The failed action shows this error too: let it say the same.
    error.message = `You were logged out: ${error.message}`;
    logOut(error.message);
  });
  session = new AbortController();
  await openWorkspace(api, session.signal, workspace);
  return `Logged in to ${workspace.name}.`;
}

function logOut(reason) {
  forgetKey();
  session?.abort();
  session = null;
  byId('workspace').hidden = true;
  byId('settings').hidden = true;
  byId('session').hidden = true;
  byId('login').hidden = false;
  byId('api-key').value = '';
  byId('api-key').focus();
  if (reason) showError(reason);
  announce(reason ? '' : 'Logged out.');
}

const loginForm = byId('login-form');
loginForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const key = byId('api-key').value.trim();
  void runAction('Checking the key…', disabling(loginForm.elements), () => logIn(key));
});
byId('log-out').addEventListener('click', () => logOut());

// A key from earlier in this tab's session logs in again after a reload; one that stopped working is dropped.
const key = storedKey();
if (key) {
  void runAction('Logging in…', disabling(loginForm.elements), () =>
    logIn(key).catch((error) => {
      if (error instanceof ApiError && error.status === 401) forgetKey();
      throw error;
    }),
  );
}
