/** @returns {any} the element with this id (the page's own markup: it is always there). */
export function byId(id) {
  return document.getElementById(id);
}

/**
 * Creates an element with attributes and children. Children that are strings become text, never markup, so names
 * and prompts typed by users cannot inject anything.
 *
 * @param {string} tag
 * @param {Record<string, string | number | boolean | null | undefined>} [attributes]
 * @param {Array<Node | string>} [children]
 */
export function element(tag, attributes = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  node.append(...children);
  return node;
}

/** "12 Nov 2026, 14:05" in the reader's locale and time zone. */
export function formatTime(iso) {
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A busy switch for `runAction` that disables these controls (a form's `elements`, say) meanwhile. */
export function disabling(controls) {
  return (busy) => {
    for (const control of controls) control.disabled = busy;
  };
}
