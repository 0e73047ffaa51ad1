// The admin settings page at /admin/, end to end: the real service on the testbed,
// driven in headless Debian Chromium through playwright-core. What the page does is
// checked against the service itself: keys it reveals are posted to the webhook
// intake, visibility it saves is seen in /wiki/search.
// Screenshots of every screen go to test/artifacts/admin-ui/ (git-ignored);
// docs/admin-ui/*.png are copies of 01, 04, 05 and 11 (copy them again when the page changes).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { startService, waitFor, type RunningService } from '../../support/service.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { basicAuth, postWebhook } from '../webhooks/api.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
/** Repository root, from dist/test/integration/admin-ui/. */
const ROOT = new URL('../../../../', import.meta.url);
const ARTIFACTS = fileURLToPath(new URL('test/artifacts/admin-ui/', ROOT));
const PAGE_SOURCES = new URL('src/admin-ui/', ROOT);
const KEY_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** A row's status after a save (hasText on a plain string would also match "Not saved"). */
const SAVED = /^Saved$/;

describe('admin settings page /admin/ in headless Chromium', () => {
  let env: TestbedEnv;
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  /** Console errors and uncaught exceptions of the page (CSP violations land here too). */
  const pageErrors: string[] = [];
  /** Keys shown on the page, by User-Agent. */
  const keys: Record<string, string> = {};

  before(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`${CHROMIUM} is missing: run the testbed's \`node dist/test/testbed/cli.js up\` (it installs Debian chromium and fonts-dejavu-core)`);
    }
    env = await readTestbedEnv();
    await mkdir(ARTIFACTS, { recursive: true });
    service = await startService();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1100, height: 720 }, locale: 'en-GB', timezoneId: 'Europe/Berlin' });
    page.on('pageerror', (err) => pageErrors.push(`uncaught: ${err.message}`));
    page.on('console', (message) => {
      // Chromium reports every non-2xx answer of fetch this way; the page shows those itself.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) pageErrors.push(message.text());
    });
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  const url = (path: string) => `${service.url}${path}`;
  const asUser = (user: string) => basicAuth(user, env.users[user]!.password);
  const screenshot = async (name: string) => {
    await page.mouse.move(0, 0); // no hover effects in the pictures
    await page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });
  };
  const clientRows = () => page.locator('#clients tr[data-client-id]');
  const clientRow = (userAgent: string) => clientRows().filter({ has: page.getByRole('cell', { name: userAgent, exact: true }) });

  it('serves the page files with their types, a strict CSP and revalidation; /admin redirects; the User-Agent list is for admins', async () => {
    const redirect = await fetch(url('/admin'), { redirect: 'manual' });
    assert.equal(redirect.status, 301);
    assert.equal(redirect.headers.get('location'), '/admin/');

    const index = await fetch(url('/admin/'));
    assert.equal(index.status, 200);
    assert.equal(index.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(await index.text(), await readFile(new URL('index.html', PAGE_SOURCES), 'utf8'));
    const csp = index.headers.get('content-security-policy') ?? '';
    for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "form-action 'none'"]) {
      assert.ok(csp.includes(directive), `CSP ${csp} lacks ${directive}`);
    }
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
    assert.equal(index.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(index.headers.get('cache-control'), 'no-cache');
    const etag = index.headers.get('etag');
    assert.ok(etag);
    const again = await fetch(url('/admin/'), { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    const head = await fetch(url('/admin/'), { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(Number(head.headers.get('content-length')), (await readFile(new URL('index.html', PAGE_SOURCES))).length);

    for (const [file, type] of [['admin.js', 'text/javascript; charset=utf-8'], ['admin.css', 'text/css; charset=utf-8'], ['icon.svg', 'image/svg+xml']] as const) {
      const res = await fetch(url(`/admin/${file}`));
      assert.equal(res.status, 200, file);
      assert.equal(res.headers.get('content-type'), type, file);
    }
    const missing = await fetch(url('/admin/no-such-file.js'));
    assert.equal(missing.status, 404);
    assert.equal((await missing.json() as { error: string }).error, 'not_found');

    const agents = url('/edu-api/admin/webhook-user-agents');
    assert.equal((await fetch(agents)).status, 401);
    assert.equal((await fetch(agents, { headers: { authorization: asUser('anna') } })).status, 403);
    const list = await fetch(agents, { headers: { authorization: basicAuth(env.admin.user, env.admin.password) } });
    assert.equal(list.status, 200);
    assert.deepEqual(await list.json(), { user_agents: ['service-eventhandler', 'platform-api'] });

    // The page builds its DOM from text only.
    for (const file of ['admin.js', 'api.js', 'dom.js', 'webhooks.js', 'wiki-visibility.js']) {
      assert.doesNotMatch(await readFile(new URL(file, PAGE_SOURCES), 'utf8'), /innerHTML|outerHTML|insertAdjacentHTML|document\.write/, file);
    }
  });

  it('signs in: a wrong password shows the API message, a non-admin the 403 message, a global admin gets the settings', async () => {
    await page.goto(url('/admin'));
    await page.getByLabel('User name').waitFor();
    await screenshot('01-sign-in');

    const signIn = async (user: string, password: string) => {
      await page.getByLabel('User name').fill(user);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
    };
    const apiMessage = async (user: string, password: string) => {
      const res = await fetch(url('/edu-api/admin/webhook-user-agents'), { headers: { authorization: basicAuth(user, password) } });
      return ((await res.json()) as { message: string }).message;
    };

    await signIn(env.admin.user, 'not-the-password');
    await seeText(page.locator('#sign-in-error'), await apiMessage(env.admin.user, 'not-the-password'));
    await seeText(page.locator('#sign-in-error'), 'HTTP 401');
    await screenshot('02-sign-in-wrong-password');

    await signIn('anna', env.users['anna']!.password);
    await seeText(page.locator('#sign-in-error'), await apiMessage('anna', env.users['anna']!.password));
    await seeText(page.locator('#sign-in-error'), 'HTTP 403');
    await screenshot('03-sign-in-not-admin');

    await signIn(env.admin.user, env.admin.password);
    await seeText(page.locator('#session-user'), env.admin.user);
    await seeText(page.locator('#clients'), 'No webhook clients yet.');
    assert.equal(await page.locator('#sign-in').isHidden(), true);
    assert.equal(await page.getByLabel('Password').inputValue(), '', 'the password field is cleared');
  });

  it('creates two clients, shows each new key once, and reveals a key that the webhook intake accepts', async () => {
    for (const userAgent of ['service-eventhandler', 'platform-api']) {
      await page.getByLabel('New client for').selectOption(userAgent);
      await page.getByRole('button', { name: 'Create client' }).click();
      await seeText(page.locator('#created-user-agent'), userAgent);
      const key = (await page.locator('#created-key').textContent()) ?? '';
      assert.match(key, KEY_PATTERN);
      keys[userAgent] = key;
      if (userAgent === 'service-eventhandler') await screenshot('04-create-result');
    }
    await eventually(async () => (await clientRows().count()) === 2, 'two rows in the client table');
    for (const userAgent of Object.keys(keys)) {
      assert.equal(await clientRow(userAgent).locator('.masked').textContent(), '********');
      assert.equal(await clientRow(userAgent).locator('.key').count(), 0);
    }
    await page.getByRole('button', { name: 'Dismiss' }).click();
    assert.equal(await page.locator('#created').isHidden(), true);
    assert.equal(await page.locator('#created-key').textContent(), '', 'the key leaves the page when dismissed');

    const row = clientRow('service-eventhandler');
    await row.getByRole('button', { name: 'Reveal' }).click();
    await seeText(row.locator('.key'), keys['service-eventhandler']!);
    await screenshot('05-webhooks');
    const revealed = (await row.locator('.key').textContent())!;

    const accepted = await postWebhook(service.url, {
      key: revealed, userAgent: 'service-eventhandler/2.1', eventId: randomUUID(),
      body: JSON.stringify({ username: 'anna', event: 'admin-ui-test' }),
    });
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    assert.deepEqual(accepted.body, { status: 'ok' });

    await row.getByRole('button', { name: 'Hide' }).click();
    await seeText(row.locator('.masked'), '********');
  });

  it('filters the table by User-Agent', async () => {
    const filter = page.getByLabel('Filter by User-Agent');
    for (const userAgent of ['platform-api', 'service-eventhandler']) {
      await filter.selectOption(userAgent);
      await eventually(async () => (await clientRows().count()) === 1 && (await clientRow(userAgent).count()) === 1,
        `only the ${userAgent} client listed`);
    }
    await screenshot('06-filtered');
    await filter.selectOption('');
    await eventually(async () => (await clientRows().count()) === 2, 'both clients listed again');
  });

  it('deletes both selected clients in one action after a confirmation; their keys are then rejected with 401', async () => {
    const deleteButton = page.getByRole('button', { name: /^Delete selected/ });
    assert.equal(await deleteButton.isDisabled(), true, 'nothing selected, nothing to delete');
    for (const userAgent of Object.keys(keys)) await clientRow(userAgent).getByRole('checkbox').check();
    await seeText(deleteButton, 'Delete selected (2)');

    await deleteButton.click();
    const dialog = page.getByRole('dialog');
    await seeText(dialog, 'These 2 webhook clients will be deleted');
    await screenshot('07-confirm-delete');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await dialog.isHidden(), true);
    assert.equal(await clientRows().count(), 2, 'cancel deletes nothing');

    await deleteButton.click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await seeText(page.locator('#webhooks-status'), 'Deleted 2 webhook clients.');
    await seeText(page.locator('#clients'), 'No webhook clients yet.');
    await screenshot('08-deleted');

    for (const [userAgent, key] of Object.entries(keys)) {
      const rejected = await postWebhook(service.url, { key, userAgent: `${userAgent}/2.1`, eventId: randomUUID() });
      assert.equal(rejected.status, 401, `${userAgent}: ${JSON.stringify(rejected.body)}`);
    }
    const listed = await fetch(url('/edu-api/admin/webhook-clients'), { headers: { authorization: basicAuth(env.admin.user, env.admin.password) } });
    assert.deepEqual(await listed.json(), { clients: [] });
  });

  it('switches a share\'s wiki off so that search skips it, limits it to access groups, and switches it back on', async () => {
    const dora = { user: 'dora', groups: env.users['dora']!.groups };
    assert.ok(dora.groups.length > 0);
    /** Shares of dora's hits: `Schulregeln` is a page of schule (readable by Domain Users), `Zeugnisausgabe` one of verwaltung. */
    const sharesFound = async (q: string) => {
      const res = await fetch(url('/wiki/search'), {
        method: 'POST',
        headers: { authorization: asUser(dora.user), 'x-service-groups': dora.groups.map(encodeURIComponent).join(','), 'content-type': 'application/json' },
        body: JSON.stringify({ q }),
      });
      const body = (await res.json()) as { hits: { share: string }[]; degraded?: boolean };
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.equal(body.degraded, undefined, 'Elasticsearch answered');
      return [...new Set(body.hits.map((hit) => hit.share))];
    };
    const searchShows = (q: string, shares: string[]) =>
      eventually(async () => JSON.stringify(await sharesFound(q)) === JSON.stringify(shares), `search for ${q} finds pages of [${shares.join(', ')}]`);

    await searchShows('Schulregeln', ['schule']);
    await searchShows('Zeugnisausgabe', ['verwaltung']);

    await page.getByRole('tab', { name: 'Wiki visibility' }).click();
    const rows = page.locator('#visibility tr[data-share]');
    await eventually(async () => (await rows.count()) === env.smb.shares.length, 'a row per configured share');
    const schule = rows.filter({ has: page.getByRole('cell', { name: 'schule', exact: true }) });
    const active = schule.getByRole('switch');
    const groups = schule.getByRole('textbox');
    const save = schule.getByRole('button', { name: 'Save' });
    assert.equal(await active.isChecked(), true);
    assert.equal(await save.isDisabled(), true, 'nothing to save before a change');
    await screenshot('09-wiki-visibility');

    // Off: schule's pages leave the search, verwaltung's stay.
    await schule.locator('label.switch').click();
    assert.equal(await active.isChecked(), false);
    await save.click();
    await seeText(schule.getByRole('status'), SAVED);
    await screenshot('10-wiki-off');
    await searchShows('Schulregeln', []);
    await searchShows('Zeugnisausgabe', ['verwaltung']);

    // On again, limited to a group dora is not in: still skipped for her.
    await schule.locator('label.switch').click();
    await groups.fill('Lehrer, Lehrkräfte Mathe');
    await save.click();
    await seeText(schule.getByRole('status'), SAVED);
    await searchShows('Schulregeln', []);
    await screenshot('11-wiki-groups');
    const stored = await fetch(url('/edu-api/admin/wiki-visibility'), { headers: { authorization: basicAuth(env.admin.user, env.admin.password) } });
    const entry = ((await stored.json()) as { shares: { share: string; active: boolean; access_groups: string[] }[] }).shares.find((s) => s.share === 'schule');
    assert.deepEqual(entry, { share: 'schule', active: true, access_groups: ['Lehrer', 'Lehrkräfte Mathe'] });

    // An API error is shown as the service words it, and nothing is stored.
    await groups.fill('x'.repeat(300));
    await save.click();
    await seeText(page.locator('#wiki-error'), 'access_groups[0]: must be at most 256 characters (HTTP 400, invalid_request)');
    await screenshot('12-wiki-error');

    // Back to the start: active for everyone.
    await groups.fill('');
    await save.click();
    await seeText(schule.getByRole('status'), SAVED);
    assert.equal(await page.locator('#wiki-error').isHidden(), true, 'a successful save clears the error');
    await searchShows('Schulregeln', ['schule']);
  });

  it('signs out, forgetting the credentials and everything shown, and the page raised no error (CSP included)', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('User name').waitFor();
    assert.equal(await page.locator('#settings').isHidden(), true);
    assert.equal(await page.locator('#visibility tr').count(), 0);
    assert.deepEqual(pageErrors, []);
  });
});

/** Waits until `locator` shows `text` (a string: case-insensitive substring); fails with what it shows instead. */
async function seeText(locator: Locator, text: string | RegExp): Promise<void> {
  try {
    await locator.filter({ hasText: text }).first().waitFor({ timeout: 15_000 });
  } catch {
    assert.fail(`expected ${locator.toString()} to show ${String(text)}; it shows ${JSON.stringify(await locator.allInnerTexts())}`);
  }
}

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  try {
    await waitFor(check, 30_000);
  } catch {
    assert.fail(`not reached within 30 s: ${what}`);
  }
}
