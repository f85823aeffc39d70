import { byId } from './dom.js';

/** Says what is going on in the status region (read out politely by screen readers). */
export function announce(message) {
  byId('status').textContent = message;
}

/** Shows a failure in the alert region; an empty message clears it. */
export function showError(message) {
  byId('error').textContent = message;
}

/**
 * Runs one thing a person asked for: controls marked busy meanwhile, "working" announced, then the outcome the
 * action returns, or its error (the service's `detail`) in the alert region. Disabling the clicked button drops
 * keyboard focus, so focus goes back to it afterwards.
 *
 * @param {string} working
 * @param {(busy: boolean) => void} setBusy
 * @param {() => Promise<string | void>} action
 */
export async function runAction(working, setBusy, action) {
  const focused = document.activeElement;
  showError('');
  announce(working);
  setBusy(true);
  try {
    announce((await action()) ?? '');
  } catch (error) {
    announce('');
    // An action cut short by logging out has nothing left to say.
    if (error instanceof DOMException && error.name === 'AbortError') return;
    showError(error instanceof Error ? error.message : String(error));
  } finally {
    setBusy(false);
    if (document.activeElement === document.body && focused instanceof HTMLElement && focused.isConnected && !focused.hidden) focused.focus();
  }
}
