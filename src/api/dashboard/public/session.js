// sessionStorage, not localStorage: the key lives as long as this tab and never lands on disk for later visitors.
const storageKey = 'content-service.apiKey';

/** @returns {string | null} */
export function storedKey() {
  return sessionStorage.getItem(storageKey);
}

/** @param {string} key */
export function rememberKey(key) {
  sessionStorage.setItem(storageKey, key);
}

export function forgetKey() {
  sessionStorage.removeItem(storageKey);
}
