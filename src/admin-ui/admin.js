// @ts-check
// The admin settings page: sign-in, the two screens and sign-out. The signed-in admin's
// credentials exist only in the AdminApi object held here; signing out, a 401 or
// reloading the page drops them.
import { AdminApi, ApiError } from './api.js';
import { byId, clearMessage, showError, whileBusy } from './dom.js';
import { WebhooksScreen } from './webhooks.js';
import { WikiVisibilityScreen } from './wiki-visibility.js';

const signInSection = byId('sign-in', HTMLElement);
const signInForm = byId('sign-in-form', HTMLFormElement);
const signInError = byId('sign-in-error', HTMLElement);
const username = byId('username', HTMLInputElement);
const password = byId('password', HTMLInputElement);
const settings = byId('settings', HTMLElement);
const session = byId('session', HTMLElement);

/**
 * Shows an API error in its box; a 401 means the credentials stopped working (password changed,
 * account disabled): back to the sign-in form with the service's message.
 * @param {HTMLElement} box
 * @param {unknown} err
 */
function fail(box, err) {
  if (err instanceof ApiError && err.status === 401) {
    signOut();
    showError(signInError, err);
    return;
  }
  showError(box, err);
}

const webhooks = new WebhooksScreen(fail);
const wikiVisibility = new WikiVisibilityScreen(fail);

signInForm.addEventListener('submit', (event) => {
  event.preventDefault();
  void whileBusy(byId('sign-in-button', HTMLButtonElement), signIn);
});

async function signIn() {
  clearMessage(signInError);
  const user = username.value.trim();
  if (user === '' || password.value === '') {
    signInError.textContent = 'Enter the user name and the password of a global admin.';
    signInError.hidden = false;
    return;
  }
  const api = new AdminApi(user, password.value);
  let supported;
  try {
    supported = await api.supportedUserAgents();
  } catch (err) {
    showError(signInError, err);
    return;
  }
  password.value = '';
  byId('session-user', HTMLElement).textContent = user;
  signInSection.hidden = true;
  session.hidden = false;
  settings.hidden = false;
  showTab('webhooks');
  await Promise.all([webhooks.open(api, supported), wikiVisibility.open(api)]);
}

function signOut() {
  webhooks.close();
  wikiVisibility.close();
  settings.hidden = true;
  session.hidden = true;
  signInSection.hidden = false;
  password.value = '';
  clearMessage(signInError);
  password.focus();
}

byId('sign-out', HTMLButtonElement).addEventListener('click', signOut);

const tabs = [
  { tab: byId('tab-webhooks', HTMLButtonElement), panel: byId('webhooks', HTMLElement), name: 'webhooks' },
  { tab: byId('tab-wiki', HTMLButtonElement), panel: byId('wiki-visibility', HTMLElement), name: 'wiki' },
];

/** @param {string} name */
function showTab(name) {
  for (const { tab, panel, name: own } of tabs) {
    tab.setAttribute('aria-selected', String(own === name));
    panel.hidden = own !== name;
  }
}

for (const { tab, name } of tabs) tab.addEventListener('click', () => showTab(name));
username.focus();
