// @ts-check
// The Wiki visibility screen: per share an "active" switch and the access groups
// (comma-separated), saved row by row.
import { byId, clearMessage, el, whileBusy } from './dom.js';

/**
 * @typedef {import('./api.js').AdminApi} AdminApi
 * @typedef {import('./api.js').ShareVisibility} ShareVisibility
 * @typedef {import('./webhooks.js').Fail} Fail
 */

export class WikiVisibilityScreen {
  /** @type {AdminApi | undefined} */
  #api;
  #error = byId('wiki-error', HTMLElement);
  #rows = byId('visibility', HTMLTableSectionElement);

  /** @param {Fail} fail shows an error (and ends the session on a 401) */
  constructor(fail) {
    this.fail = fail;
  }

  /** @param {AdminApi} api */
  async open(api) {
    this.#api = api;
    let shares;
    try {
      shares = await api.listVisibility();
    } catch (err) {
      this.fail(this.#error, err);
      return;
    }
    clearMessage(this.#error);
    this.#rows.replaceChildren(...(shares.length > 0
      ? shares.map((share) => this.#row(share))
      : [el('tr', {}, el('td', { colSpan: 4, className: 'empty' }, 'No shares are configured (smb.shares in config.yml).'))]));
  }

  close() {
    this.#api = undefined;
    clearMessage(this.#error);
    this.#rows.replaceChildren();
  }

  /** @param {ShareVisibility} stored */
  #row(stored) {
    let saved = stored;
    const active = el('input', { type: 'checkbox', role: 'switch', checked: saved.active, 'aria-label': `Wiki of ${saved.share} active` });
    const activeText = el('span', { className: 'switch-text' });
    const groups = el('input', {
      type: 'text', value: saved.access_groups.join(', '), placeholder: 'All users',
      'aria-label': `Access groups of ${saved.share}`, spellcheck: false,
    });
    const save = el('button', { type: 'button', disabled: true }, 'Save');
    const status = el('span', { className: 'row-status', role: 'status' });

    const changed = () => active.checked !== saved.active || !sameGroups(parseGroups(groups.value), saved.access_groups);
    const update = () => {
      activeText.textContent = active.checked ? 'Active' : 'Off';
      save.disabled = !changed();
      if (changed()) status.textContent = 'Not saved';
    };
    active.addEventListener('change', update);
    groups.addEventListener('input', update);
    save.addEventListener('click', () => void whileBusy(save, async () => {
      const api = this.#api;
      if (!api) return;
      try {
        saved = await api.setVisibility(saved.share, { active: active.checked, access_groups: parseGroups(groups.value) });
      } catch (err) {
        status.textContent = 'Not saved';
        this.fail(this.#error, err);
        return;
      }
      clearMessage(this.#error);
      active.checked = saved.active;
      groups.value = saved.access_groups.join(', ');
      status.textContent = 'Saved';
    }).then(update));
    update();
    status.textContent = '';

    return el('tr', { 'data-share': saved.share },
      el('td', {}, saved.share),
      el('td', {}, el('label', { className: 'switch' }, active, el('span', { className: 'slider', 'aria-hidden': 'true' }), activeText)),
      el('td', { className: 'groups-cell' }, groups),
      el('td', { className: 'actions-cell' }, save, status),
    );
  }
}

/** @param {string} text comma-separated group names */
function parseGroups(text) {
  return text.split(',').map((name) => name.trim()).filter((name) => name !== '');
}

/**
 * @param {string[]} a
 * @param {string[]} b
 */
function sameGroups(a, b) {
  return a.length === b.length && a.every((name, i) => name === b[i]);
}
