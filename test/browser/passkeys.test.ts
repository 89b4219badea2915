/**
 * Passkeys in the console (docs/webauthn.md, docs/console.md): the Security page, passkey sign-in
 * on the login page and the second factor step, with Chromium's virtual authenticator (CDP's
 * WebAuthn domain) standing for the device. The console is opened at http://localhost:<port>: the
 * RP ID is the page's host, and browsers refuse IP addresses as RP IDs.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CDPSession, Page } from 'playwright-core';
import { ADMIN, createTestApp, type TestApp } from '../helpers/app.ts';
import { newOrg, newUser, type User } from '../helpers/factories.ts';
import { browser, consoleAt, consolePage, serve, type ConsolePage } from '../helpers/browser.ts';

/** A device's authenticator: a platform one (internal) keeping discoverable passkeys and verifying its user. */
interface Authenticator {
  cdp: CDPSession;
  id: string;
  credentials(): Promise<{ credentialId: string; isResidentCredential: boolean; privateKey: string; signCount: number; rpId?: string; userHandle?: string }[]>;
}

async function addAuthenticator(page: Page): Promise<Authenticator> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return { cdp, id: authenticatorId, credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials };
}

interface Device extends ConsolePage {
  authenticator: Authenticator;
}

/** A browser with one virtual authenticator, on the console at http://localhost:<port>. */
async function device(t: TestApp): Promise<Device> {
  const c = await consoleAt(`http://localhost:${new URL(await serve(t)).port}`);
  return { ...c, authenticator: await addAuthenticator(c.page) };
}

async function passwordLogin(page: Page, who: { username: string; password: string }, start = '/login') {
  await page.goto(start);
  await page.getByLabel('Username').fill(who.username);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Log in' }).click();
}

async function userMenu(page: Page, item: RegExp) {
  await page.getByRole('button', { name: /^User menu/ }).click();
  await page.getByRole('menuitem', { name: item }).click();
}

async function logOut(page: Page) {
  await userMenu(page, /^Log out/);
  await page.waitForURL((url) => url.pathname === '/login');
}

/** A request of the page's own session (cookies and CSRF header), answered status and body. */
function fromPage(page: Page, method: string, url: string, body?: unknown): Promise<{ status: number; body: any }> {
  return page.evaluate(async ({ method, url, body }) => {
    const csrf = /(?:^|; )csrftoken=([^;]*)/.exec(document.cookie)?.[1] ?? '';
    const res = await fetch(url, { method, headers: { 'Content-Type': 'application/json', 'X-CSRFToken': decodeURIComponent(csrf) }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }, { method, url, body });
}

describe('console: passkeys', () => {
  let t: TestApp;
  let alice: User;
  let otherAdmin: User;
  let strict: { id: number };

  const passkeysOf = async (user: User) => (await t.get(`/api/v2/webauthn/credentials/?user=${user.id}&order_by=id`)).body.results;

  before(async () => {
    t = await createTestApp();
    const org = await newOrg(t, { name: 'Passkey people' });
    alice = await newUser(t, { username: 'alice', member: org });
    otherAdmin = await newUser(t, { username: 'olga', admin: await newOrg(t, { name: 'Elsewhere' }) });
    strict = await newOrg(t, { name: 'Strict', webauthn_required: 'all' });
  });
  after(() => t.close());

  it('registers, renames and deletes a passkey on the Security page, and signs in with it alone, usernameless and username-first', async () => {
    const d = await device(t);
    const { page } = d;
    try {
      await passwordLogin(page, alice);
      await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
      await userMenu(page, /^Security/);
      await page.waitForURL((url) => url.pathname === '/security');
      await page.getByRole('heading', { name: 'No passkeys' }).waitFor();

      // Register: a name, then the authenticator makes the passkey.
      await page.getByRole('button', { name: 'Register a passkey' }).click();
      const dialog = page.getByRole('dialog', { name: 'Register a passkey' });
      await dialog.getByLabel('Name').fill('Work laptop');
      await dialog.getByRole('button', { name: 'Register' }).click();
      await dialog.waitFor({ state: 'detached' });
      const table = page.getByRole('grid', { name: 'Your passkeys' }).or(page.getByRole('table', { name: 'Your passkeys' }));
      const row = table.getByRole('row', { name: /Work laptop/ });
      await row.waitFor();
      assert.match(await row.innerText(), /Never/, 'not used yet');
      let stored = await passkeysOf(alice);
      assert.deepEqual(stored.map((p: { label: string }) => p.label), ['Work laptop']);
      const [held] = await d.authenticator.credentials();
      assert.equal(held.isResidentCredential, true, 'a discoverable passkey, which signs in without a username');
      assert.equal(held.rpId, 'localhost');
      assert.equal(Buffer.from(held.credentialId, 'base64').toString('base64url'), stored[0].credential_id);
      await d.shot('passkeys-security-page');

      // Rename: the API's refusal under the field, changing nothing; markup in a name is text.
      await page.getByRole('button', { name: 'Rename Work laptop' }).click();
      const rename = page.getByRole('dialog', { name: 'Rename Work laptop' });
      await rename.getByLabel('Name').fill('x'.repeat(101));
      await rename.getByRole('button', { name: 'Save' }).click();
      await rename.getByText('Ensure this field has no more than 100 characters.').waitFor();
      assert.equal((await passkeysOf(alice))[0].label, 'Work laptop');
      await rename.getByLabel('Name').fill('   ');
      await rename.getByRole('button', { name: 'Save' }).click();
      await rename.getByText('This field may not be blank.').waitFor();
      assert.equal((await passkeysOf(alice))[0].label, 'Work laptop');
      const markup = '<img src=x onerror="window.__renamed=1"> Laptop';
      await rename.getByLabel('Name').fill(markup);
      await rename.getByRole('button', { name: 'Save' }).click();
      await rename.waitFor({ state: 'detached' });
      await table.getByText(markup, { exact: true }).waitFor();
      assert.equal(await page.evaluate(() => (window as { __renamed?: number }).__renamed), undefined);
      assert.equal((await passkeysOf(alice))[0].label, markup);

      // Another organization's admin sees nothing of it and may not rename it, even from the console's session.
      const olga = await consolePage(t, otherAdmin, '/security');
      try {
        await olga.page.getByRole('heading', { name: 'No passkeys' }).waitFor();
        const refused = await fromPage(olga.page, 'PATCH', `/api/v2/webauthn/credentials/${stored[0].id}/`, { label: 'Mine now' });
        assert.ok([403, 404].includes(refused.status), JSON.stringify(refused));
        assert.equal((await passkeysOf(alice))[0].label, markup);
      } finally {
        await olga.close();
      }
      // A superuser's Security page lists his own passkeys only, though the API shows him everyone's.
      const admin = await consolePage(t, ADMIN, '/security');
      try {
        await admin.page.getByRole('heading', { name: 'No passkeys' }).waitFor();
        assert.ok((await t.get('/api/v2/webauthn/credentials/')).body.count >= 1);
      } finally {
        await admin.close();
      }

      // Usernameless: the passkey alone signs in, to the same session a password login starts.
      await logOut(page);
      assert.equal((await d.context.cookies()).some((c) => c.name === 'svc_sessionid' && c.value), false);
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
      const session = (await d.context.cookies()).find((c) => c.name === 'svc_sessionid');
      assert.ok(session?.value, 'a session cookie');
      assert.equal(session.httpOnly, true);
      const me = await fromPage(page, 'GET', '/api/v2/me/');
      assert.equal(me.body.results[0].username, 'alice');
      assert.equal(me.body.results[0].second_factor_pending, false);
      const [login] = await t.db.query<{ detail: { method?: string } }>(
        `SELECT detail FROM audit_events WHERE event_type = 'auth.login' AND actor_username = 'alice' AND outcome = 'success' ORDER BY id DESC LIMIT 1`,
      );
      assert.equal(login.detail.method, 'webauthn');
      await page.reload();
      await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
      stored = await passkeysOf(alice);
      assert.ok(stored[0].last_used, 'the sign-in used it');

      // Username-first: the username typed, the passkeys of that user.
      await logOut(page);
      await page.getByLabel('Username').fill('alice');
      const begun = page.waitForRequest((req) => req.url().endsWith('/api/v2/webauthn/authenticate/begin/'));
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      assert.deepEqual((await begun).postDataJSON(), { username: 'alice' });
      await page.getByRole('heading', { name: 'Dashboard' }).waitFor();

      // Delete, after confirming; the authenticator still offers it, and the service no longer knows it.
      await userMenu(page, /^Security/);
      await page.getByRole('button', { name: `Delete ${markup}` }).click();
      const confirm = page.getByRole('dialog', { name: `Delete ${markup}?` });
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await confirm.waitFor({ state: 'detached' });
      assert.equal((await passkeysOf(alice)).length, 1, 'cancelled: kept');
      await page.getByRole('button', { name: `Delete ${markup}` }).click();
      await page.getByRole('dialog', { name: `Delete ${markup}?` }).getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('heading', { name: 'No passkeys' }).waitFor();
      assert.equal((await passkeysOf(alice)).length, 0);
      await logOut(page);
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await page.getByRole('alert').filter({ hasText: 'This passkey is not registered here.' }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/login', 'still on the login page');
      await d.shot('passkeys-sign-in-unknown-passkey');
      assert.deepEqual(d.errors, []);
    } finally {
      await d.context.close();
    }
  });

  it('an organization asking everyone for a passkey: the password leads to the second factor step, which enrolls, passes and reports errors', async () => {
    const bob = await newUser(t, { username: 'bob', member: strict });
    const d = await device(t);
    const { page } = d;
    try {
      await passwordLogin(page, bob);
      await page.waitForURL((url) => url.pathname === '/login/second-factor');
      await page.getByRole('heading', { name: 'Verify it is you' }).waitFor();
      // Nothing else: no navigation, and any other page comes back to this step.
      assert.equal(await page.getByRole('navigation', { name: 'Main' }).count(), 0);
      await page.goto('/inventories');
      await page.waitForURL((url) => url.pathname === '/login/second-factor' && url.searchParams.get('next') === '/inventories');
      assert.equal((await fromPage(page, 'GET', '/api/v2/inventories/')).status, 401);

      // No passkey yet: the first one is registered here, then used.
      const enroll = page.getByRole('form', { name: 'Register a passkey' });
      await enroll.getByLabel('Passkey name').fill('Bob\'s key');
      await d.shot('passkeys-second-factor-enroll');
      await enroll.getByRole('button', { name: 'Register a passkey' }).click();
      await page.getByText('Passkey "Bob\'s key" registered: use it now to continue.').waitFor();
      assert.deepEqual((await passkeysOf(bob)).map((p: { label: string }) => p.label), ['Bob\'s key']);
      assert.equal((await fromPage(page, 'GET', '/api/v2/inventories/')).status, 401, 'registering does not pass the factor');
      await page.getByRole('button', { name: 'Use a passkey' }).click();
      await page.waitForURL((url) => url.pathname === '/inventories');
      await page.getByRole('heading', { name: 'Inventories' }).first().waitFor();
      assert.equal((await fromPage(page, 'GET', '/api/v2/inventories/')).status, 200);

      // The next password login asks for the passkey he has.
      await logOut(page);
      await passwordLogin(page, bob);
      await page.getByRole('button', { name: 'Use a passkey' }).waitFor();
      assert.equal(await page.getByRole('form', { name: 'Register a passkey' }).count(), 0, 'no second enrollment while the factor is pending');
      await d.shot('passkeys-second-factor-step');

      // A copied authenticator (its signature counter behind the service's) is refused, and said so; the step stays.
      const [held] = await d.authenticator.credentials();
      const restore = async (signCount: number) => {
        await d.authenticator.cdp.send('WebAuthn.removeCredential', { authenticatorId: d.authenticator.id, credentialId: held.credentialId });
        await d.authenticator.cdp.send('WebAuthn.addCredential', { authenticatorId: d.authenticator.id, credential: { ...held, signCount } });
      };
      await restore(0);
      await page.getByRole('button', { name: 'Use a passkey' }).click();
      await page.getByRole('alert').filter({ hasText: 'signature counter did not move forward' }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/login/second-factor');
      assert.equal((await fromPage(page, 'GET', '/api/v2/inventories/')).status, 401);
      await restore(held.signCount + 10);
      await page.getByRole('button', { name: 'Use a passkey' }).click();
      await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
      assert.deepEqual((await fromPage(page, 'GET', '/api/v2/me/')).body.results[0].second_factor_pending, false);

      // The step's Log out ends the session.
      await logOut(page);
      await passwordLogin(page, bob);
      await page.getByRole('button', { name: 'Use a passkey' }).waitFor();
      await page.getByRole('button', { name: 'Log out' }).click();
      await page.waitForURL((url) => url.pathname === '/login');
      assert.equal((await fromPage(page, 'GET', '/api/v2/me/')).status, 401);
      assert.deepEqual(d.errors, []);
    } finally {
      await d.context.close();
    }
  });

  it('a session walled after it began (the organization turned the requirement on) goes to the step, then back to its page', async () => {
    const carol = await newUser(t, { username: 'carol', member: await newOrg(t, { name: 'Turning strict' }) });
    const d = await device(t);
    const { page } = d;
    try {
      await passwordLogin(page, carol, '/login?next=%2Fsecurity');
      await page.getByRole('button', { name: 'Register a passkey' }).click();
      await page.getByRole('dialog', { name: 'Register a passkey' }).getByRole('button', { name: 'Register' }).click();
      await page.getByRole('grid', { name: 'Your passkeys' }).or(page.getByRole('table', { name: 'Your passkeys' })).getByRole('row', { name: /Passkey 1/ }).waitFor();
      const org = (await t.get('/api/v2/organizations/?name=Turning%20strict')).body.results[0];
      assert.equal((await t.patch(`/api/v2/organizations/${org.id}/`, { webauthn_required: 'all' })).status, 200);

      // Without reloading: the next page's request meets the wall, and the console goes to the step.
      await userMenu(page, /^User details/);
      await page.waitForURL((url) => url.pathname === '/login/second-factor' && url.searchParams.get('next') === `/users/${carol.id}`);
      await page.getByRole('button', { name: 'Use a passkey' }).click();
      await page.waitForURL((url) => url.pathname === `/users/${carol.id}`);
      await page.getByRole('heading', { name: 'carol' }).first().waitFor();
      assert.deepEqual(d.errors, []);
    } finally {
      await d.context.close();
    }
  });

  it('on an IP address the login page says passkeys need the host name', async () => {
    const base = await serve(t);
    const context = await (await browser()).newContext({ baseURL: base });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      await addAuthenticator(page);
      await page.goto('/login');
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await page.getByRole('alert').filter({ hasText: 'not an IP address (127.0.0.1)' }).waitFor();
    } finally {
      await context.close();
    }
  });
});
