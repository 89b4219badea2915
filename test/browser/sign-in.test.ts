import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { ADMIN, createTestApp, type TestApp } from '../helpers/app.ts';
import { ARTIFACTS, CHROMIUM, browser, serve } from '../helpers/browser.ts';

describe('console: the login page lists the SSO methods', () => {
  let t: TestApp;

  before(async () => {
    // Stands for configured SAML and OIDC settings: the same entries their methods list.
    const standIn = {
      entries: (_services: unknown, base: string) => ({
        oidc: { login_url: '/sso/login/oidc/', complete_url: `${base}/sso/complete/oidc/` },
        'saml:okta': { login_url: '/sso/login/saml/?idp=okta', complete_url: `${base}/sso/complete/saml/`, metadata_url: '/sso/metadata/saml/' },
      }),
    };
    t = await createTestApp({}, { extraSsoMethods: [standIn] });
  });
  after(() => t.close());

  it('shows one button per entry of /api/v2/auth/, carrying next, and the message of a failed sign-in', async () => {
    const base = await serve(t);
    const context = await (await browser()).newContext({ baseURL: base });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      await page.goto(`${base}/login?next=%2Fjobs&sso_error=${encodeURIComponent('The identity provider refused the sign-in.')}`);
      const oidc = page.getByRole('link', { name: 'Sign in with oidc' });
      const saml = page.getByRole('link', { name: 'Sign in with saml:okta' });
      await oidc.waitFor();
      assert.equal(await oidc.getAttribute('href'), '/sso/login/oidc/?next=%2Fjobs');
      assert.equal(await saml.getAttribute('href'), '/sso/login/saml/?idp=okta&next=%2Fjobs');
      await page.getByRole('alert').filter({ hasText: 'The identity provider refused the sign-in.' }).waitFor();
      assert.equal(await page.getByLabel('Username').count(), 1, 'the password form stays for local, LDAP and RADIUS users');
    } finally {
      await context.close();
    }
  });
});

describe('console: signing in over plain HTTP with SESSION_COOKIE_SECURE true (the default)', () => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp({ SESSION_COOKIE_SECURE: 'true', CSRF_COOKIE_SECURE: 'true' });
  });
  after(() => t.close());

  it('opens http://localhost:<port>/ as the README says, logs in and reaches the dashboard', async () => {
    const port = new URL(await serve(t)).port;
    const context = await (await browser()).newContext({ viewport: { width: 1280, height: 860 } });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      await page.goto(`http://localhost:${port}/`);
      await page.waitForURL((url) => url.pathname === '/login');
      await page.getByLabel('Username').fill(ADMIN.username);
      await page.getByLabel('Password').fill(ADMIN.password);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
      assert.equal(new URL(page.url()).host, `localhost:${port}`);
      const session = (await context.cookies()).find((c) => c.name === 'svc_sessionid');
      assert.equal(session?.secure, true, 'the session cookie stays Secure');
      // The session travels back: a reload stays signed in, and a write passes the CSRF check.
      await page.reload();
      await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
      const created = await page.evaluate(async () => {
        const csrf = /(?:^|; )csrftoken=([^;]*)/.exec(document.cookie)?.[1] ?? '';
        const res = await fetch('/api/v2/organizations/', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-CSRFToken': csrf }, body: JSON.stringify({ name: 'Made over http://localhost' }) });
        return res.status;
      });
      assert.equal(created, 201);
      await shotOf(page, 'sign-in-http-localhost-dashboard');
    } finally {
      await context.close();
    }
  });

  it('from an address that is not loopback, refuses and links to the HTTPS login page', async () => {
    const port = new URL(await serve(t)).port;
    // A name that is not loopback, resolved to this machine: the browser sees an ordinary insecure site.
    const remote = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--host-resolver-rules=MAP drover.test 127.0.0.1'] });
    try {
      const page = await remote.newPage();
      page.setDefaultTimeout(20_000);
      await page.goto(`http://drover.test:${port}/login?next=%2Fjobs`);
      await page.getByLabel('Username').fill(ADMIN.username);
      await page.getByLabel('Password').fill(ADMIN.password);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('alert').filter({ hasText: 'Login over plain HTTP is refused' }).waitFor();
      const link = page.getByRole('link', { name: `Log in at https://drover.test:${t.env.httpsPort}/` });
      assert.equal(await link.getAttribute('href'), `https://drover.test:${t.env.httpsPort}/login?next=%2Fjobs`);
      assert.equal(new URL(page.url()).pathname, '/login', 'still on the login page');
      await shotOf(page, 'sign-in-plain-http-refused');
    } finally {
      await remote.close();
    }
  });
});

async function shotOf(page: Page, name: string) {
  const dir = path.join(ARTIFACTS, 'screenshots');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`) });
}
