// @ts-check
// The Webhooks screen: the client table (keys masked until revealed), the User-Agent
// filter, creation with the new key shown once, and deletion of the selected rows
// after a confirmation.
import { byId, clearMessage, el, timeElement, whileBusy } from './dom.js';

/**
 * @typedef {import('./api.js').AdminApi} AdminApi
 * @typedef {import('./api.js').WebhookClient} WebhookClient
 * @typedef {(box: HTMLElement, err: unknown) => void} Fail
 */

const MASKED_KEY = '********';

export class WebhooksScreen {
  /** @type {AdminApi | undefined} */
  #api;
  /** @type {WebhookClient[]} */
  #clients = [];
  /** Ids of the selected rows (always a subset of the listed clients). */
  #selected = new Set();
  /** Keys revealed in this session, by client id, until hidden. */
  #revealed = new Map();
  /** Every User-Agent seen (supported or in a listing), for the filter. */
  #knownAgents = new Set();

  #error = byId('webhooks-error', HTMLElement);
  #status = byId('webhooks-status', HTMLElement);
  #rows = byId('clients', HTMLTableSectionElement);
  #filter = byId('filter-user-agent', HTMLSelectElement);
  #createAgent = byId('create-user-agent', HTMLSelectElement);
  #createButton = byId('create-button', HTMLButtonElement);
  #created = byId('created', HTMLElement);
  #createdKey = byId('created-key', HTMLElement);
  #selectAll = byId('select-all', HTMLInputElement);
  #deleteButton = byId('delete-selected', HTMLButtonElement);
  #confirm = byId('confirm-delete', HTMLDialogElement);

  /** @param {Fail} fail shows an error (and ends the session on a 401) */
  constructor(fail) {
    this.fail = fail;
    byId('create-form', HTMLFormElement).addEventListener('submit', (event) => {
      event.preventDefault();
      void whileBusy(this.#createButton, () => this.#create());
    });
    this.#filter.addEventListener('change', () => void this.reload());
    this.#selectAll.addEventListener('change', () => {
      this.#selected = new Set(this.#selectAll.checked ? this.#clients.map((c) => c.id) : []);
      this.#render();
    });
    this.#deleteButton.addEventListener('click', () => this.#askToDelete());
    byId('confirm-delete-cancel', HTMLButtonElement).addEventListener('click', () => this.#confirm.close());
    const confirmButton = byId('confirm-delete-ok', HTMLButtonElement);
    confirmButton.addEventListener('click', () => void whileBusy(confirmButton, () => this.#deleteSelected()));
    byId('created-dismiss', HTMLButtonElement).addEventListener('click', () => this.#hideCreated());
    byId('created-copy', HTMLButtonElement).addEventListener('click', () => this.#copyCreatedKey());
  }

  /**
   * Shows the screen for a freshly signed-in admin.
   * @param {AdminApi} api
   * @param {string[]} supportedUserAgents
   */
  async open(api, supportedUserAgents) {
    this.#api = api;
    this.#createAgent.replaceChildren(...supportedUserAgents.map((agent) => el('option', { value: agent }, agent)));
    supportedUserAgents.forEach((agent) => this.#knownAgents.add(agent));
    this.#fillFilter();
    await this.reload();
  }

  /** Forgets everything shown (sign-out). */
  close() {
    this.#api = undefined;
    this.#clients = [];
    this.#selected.clear();
    this.#revealed.clear();
    this.#knownAgents.clear();
    this.#filter.value = '';
    this.#hideCreated();
    clearMessage(this.#error);
    clearMessage(this.#status);
    this.#confirm.close();
    this.#render();
  }

  /** Lists the clients again (with the current filter). */
  async reload() {
    const api = this.#api;
    if (!api) return;
    try {
      this.#clients = await api.listClients(this.#filter.value || undefined);
    } catch (err) {
      this.fail(this.#error, err);
      return;
    }
    clearMessage(this.#error);
    const listed = new Set(this.#clients.map((c) => c.id));
    this.#selected = new Set([...this.#selected].filter((id) => listed.has(id)));
    for (const id of this.#revealed.keys()) if (!listed.has(id)) this.#revealed.delete(id);
    const before = this.#knownAgents.size;
    this.#clients.forEach((c) => this.#knownAgents.add(c.user_agent));
    if (this.#knownAgents.size !== before) this.#fillFilter();
    this.#render();
  }

  #fillFilter() {
    const current = this.#filter.value;
    const agents = [...this.#knownAgents].sort();
    this.#filter.replaceChildren(
      el('option', { value: '' }, 'All User-Agents'),
      ...agents.map((agent) => el('option', { value: agent }, agent)),
    );
    this.#filter.value = current;
  }

  async #create() {
    const api = this.#api;
    if (!api) return;
    clearMessage(this.#status);
    this.#hideCreated();
    let client;
    try {
      client = await api.createClient(this.#createAgent.value);
    } catch (err) {
      this.fail(this.#error, err);
      return;
    }
    clearMessage(this.#error);
    byId('created-user-agent', HTMLElement).textContent = client.user_agent;
    try {
      this.#createdKey.textContent = await api.revealKey(client.id);
    } catch (err) {
      this.#createdKey.textContent = '(could not be shown; reveal it from the table)';
      this.fail(this.#error, err);
    }
    this.#created.hidden = false;
    await this.reload();
  }

  #hideCreated() {
    this.#created.hidden = true;
    this.#createdKey.textContent = '';
  }

  async #copyCreatedKey() {
    try {
      await navigator.clipboard.writeText(this.#createdKey.textContent ?? '');
      this.#status.textContent = 'API key copied to the clipboard.';
      this.#status.hidden = false;
    } catch {
      // No clipboard access (e.g. plain HTTP on another host): select the key for a manual copy.
      getSelection()?.selectAllChildren(this.#createdKey);
    }
  }

  /** @param {WebhookClient} client */
  async #toggleKey(client) {
    if (this.#revealed.has(client.id)) {
      this.#revealed.delete(client.id);
      this.#render();
      return;
    }
    const api = this.#api;
    if (!api) return;
    try {
      this.#revealed.set(client.id, await api.revealKey(client.id));
    } catch (err) {
      this.fail(this.#error, err);
      return;
    }
    clearMessage(this.#error);
    this.#render();
  }

  #askToDelete() {
    const chosen = this.#clients.filter((c) => this.#selected.has(c.id));
    if (chosen.length === 0) return;
    byId('confirm-delete-text', HTMLElement).textContent = chosen.length === 1
      ? 'This webhook client will be deleted. Its API key is rejected at once.'
      : `These ${chosen.length} webhook clients will be deleted. Their API keys are rejected at once.`;
    byId('confirm-delete-list', HTMLElement).replaceChildren(
      ...chosen.map((c) => el('li', {}, `${c.user_agent}, created `, timeElement(c.created_at))),
    );
    this.#confirm.showModal();
  }

  async #deleteSelected() {
    const api = this.#api;
    if (!api) return;
    const ids = [...this.#selected];
    try {
      const result = await api.deleteClients(ids);
      clearMessage(this.#error);
      const gone = result.not_found.length > 0 ? ` ${result.not_found.length} had already been deleted.` : '';
      this.#status.textContent = `Deleted ${result.deleted.length} webhook client${result.deleted.length === 1 ? '' : 's'}.${gone}`;
      this.#status.hidden = false;
    } catch (err) {
      this.fail(this.#error, err);
    } finally {
      this.#confirm.close();
    }
    await this.reload();
  }

  #render() {
    if (this.#clients.length === 0) {
      const filter = this.#filter.value;
      const text = filter ? `No webhook clients for User-Agent ${filter}.` : 'No webhook clients yet.';
      this.#rows.replaceChildren(el('tr', {}, el('td', { colSpan: 4, className: 'empty' }, text)));
    } else {
      this.#rows.replaceChildren(...this.#clients.map((client) => this.#row(client)));
    }
    const count = this.#selected.size;
    this.#selectAll.checked = count > 0 && count === this.#clients.length;
    this.#selectAll.indeterminate = count > 0 && count < this.#clients.length;
    this.#deleteButton.disabled = count === 0;
    this.#deleteButton.textContent = count === 0 ? 'Delete selected' : `Delete selected (${count})`;
  }

  /** @param {WebhookClient} client */
  #row(client) {
    const select = el('input', {
      type: 'checkbox', checked: this.#selected.has(client.id), 'aria-label': `Select client ${client.id}`,
    });
    select.addEventListener('change', () => {
      if (select.checked) this.#selected.add(client.id);
      else this.#selected.delete(client.id);
      this.#render();
    });
    const key = this.#revealed.get(client.id);
    const toggle = el('button', { type: 'button', className: 'secondary small' }, key === undefined ? 'Reveal' : 'Hide');
    toggle.addEventListener('click', () => void whileBusy(toggle, () => this.#toggleKey(client)));
    return el('tr', { 'data-client-id': client.id, className: this.#selected.has(client.id) ? 'selected' : '' },
      el('td', { className: 'select' }, select),
      el('td', {}, client.user_agent),
      el('td', {}, el('div', { className: 'key-cell' },
        key === undefined ? el('span', { className: 'masked' }, MASKED_KEY) : el('code', { className: 'key' }, key),
        toggle)),
      el('td', {}, timeElement(client.created_at)),
    );
  }
}
