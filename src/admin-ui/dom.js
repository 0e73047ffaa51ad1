// @ts-check
// Building and updating the page. Data from the service only ever becomes text
// (textContent or attribute values), never markup.
import { ApiError } from './api.js';

/**
 * An element with properties (or attributes, for names that are no property, such as aria-*
 * and data-*) and children; strings become text nodes.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, unknown>} [props]
 * @param {(Node | string)[]} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name in node) /** @type {any} */ (node)[name] = value;
    else node.setAttribute(name, String(value));
  }
  node.append(...children);
  return node;
}

/**
 * The element with this id; a missing one is a bug in index.html.
 * @template {HTMLElement} T
 * @param {string} id
 * @param {new () => T} type
 * @returns {T}
 */
export function byId(id, type) {
  const node = document.getElementById(id);
  if (!(node instanceof type)) throw new Error(`index.html lacks the ${type.name} #${id}`);
  return node;
}

/**
 * Shows an error in its box: the service's message, then status and code.
 * @param {HTMLElement} box
 * @param {unknown} err
 */
export function showError(box, err) {
  box.textContent = describeError(err);
  box.hidden = false;
}

/** @param {HTMLElement} box */
export function clearMessage(box) {
  box.textContent = '';
  box.hidden = true;
}

/** @param {unknown} err */
export function describeError(err) {
  if (err instanceof ApiError) return err.status === 0 ? err.message : `${err.message} (HTTP ${err.status}, ${err.code})`;
  return `Unexpected error in the page: ${err instanceof Error ? err.message : String(err)}`;
}

/**
 * Runs `work` with the button disabled, so that a slow call is not sent twice.
 * @param {HTMLButtonElement} button
 * @param {() => Promise<void>} work
 */
export async function whileBusy(button, work) {
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  try {
    await work();
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
  }
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/**
 * A <time> showing an ISO timestamp in the browser's locale and time zone.
 * @param {string} iso
 */
export function timeElement(iso) {
  const date = new Date(iso);
  const text = Number.isNaN(date.getTime()) ? iso : dateFormat.format(date);
  return el('time', { dateTime: iso, title: iso }, text);
}
