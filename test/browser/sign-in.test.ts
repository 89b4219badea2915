import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { browser, serve } from '../helpers/browser.ts';

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
