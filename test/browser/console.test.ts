import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, ADMIN, type TestApp } from '../helpers/app.ts';
import { browser, consolePage, serve } from '../helpers/browser.ts';
import { newOrg, newUser } from '../helpers/factories.ts';

describe('web console: sign-in, lists, dashboard, settings', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
    for (const name of ['Alpha Org', 'Beta Org', 'Gamma Org']) await newOrg(t, { name });
  });
  after(() => t.close());

  it('sends a visitor to the login page and back to where they were after logging in', async () => {
    const base = await serve(t);
    const context = await (await browser()).newContext({ baseURL: base });
    const page = await context.newPage();
    await page.goto('/organizations?search=Beta');
    await page.waitForURL(/\/login\?next=/);
    assert.equal(new URL(page.url()).searchParams.get('next'), '/organizations?search=Beta');
    await page.getByLabel('Password').fill('wrong');
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Invalid username or password.' }).waitFor();
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL((url) => url.pathname === '/organizations');
    await page.getByRole('link', { name: 'Beta Org' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Alpha Org' }).count(), 0);
    await context.close();
  });

  it('returns to the login page when the session ends, then to the same page', async () => {
    const c = await consolePage(t, ADMIN, '/organizations');
    await c.page.getByRole('link', { name: 'Gamma Org' }).waitFor();
    // The navigation shows its sections once the API has answered for each; a question still out
    // when the session ends would send the page to the login page before the click.
    await c.page.getByRole('link', { name: 'Teams' }).waitFor();
    await c.page.waitForLoadState('networkidle');
    // The session ends on the server (as when it expires): the next request is refused.
    await t.db.query('DELETE FROM sessions');
    await c.page.getByRole('link', { name: 'Teams' }).click();
    await c.page.waitForURL(/\/login\?next=%2Fteams/);
    await c.page.getByLabel('Username').fill(ADMIN.username);
    await c.page.getByLabel('Password').fill(ADMIN.password);
    await c.page.getByRole('button', { name: 'Log in' }).click();
    await c.page.waitForURL((url) => url.pathname === '/teams');
    await c.page.getByRole('heading', { name: 'Teams', level: 1 }).waitFor();
    await c.close();
  });

  it('keeps search, sort and page of a list in its address, as the API query', async () => {
    const c = await consolePage(t, ADMIN, '/organizations');
    const { page } = c;
    await page.getByRole('link', { name: 'Alpha Org' }).waitFor();
    await page.getByRole('columnheader', { name: 'Name' }).getByRole('button').click();
    await page.waitForURL(/order_by=name/);
    await page.getByRole('columnheader', { name: 'Name' }).getByRole('button').click();
    await page.waitForURL(/order_by=-name/);
    const names = async () => (await page.locator('tbody tr td[data-label="Name"]').allInnerTexts()).map((s) => s.trim());
    await page.waitForFunction(() => document.querySelector('tbody tr td[data-label="Name"]')?.textContent?.trim() === 'Gamma Org');
    assert.deepEqual((await names()).filter((n) => n.endsWith(' Org')), ['Gamma Org', 'Beta Org', 'Alpha Org']);
    await page.getByLabel('Search organizations').fill('alpha');
    await page.waitForURL(/search=alpha/);
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    assert.deepEqual(await names(), ['Alpha Org']);
    // A shared link shows the same list.
    await page.goto(page.url());
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    assert.deepEqual(await names(), ['Alpha Org']);
    await page.getByLabel('Search organizations').fill('nothing-matches-this');
    await page.getByText('No organizations match').waitFor();
    await c.shot('organizations-empty-search');
    assert.deepEqual(c.errors, []);
    await c.close();
  });

  it('shows counts, the job status chart and recent activity on the dashboard', async () => {
    const c = await consolePage(t);
    await c.page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const orgs = (await t.get('/api/v2/dashboard/')).body.organizations.total;
    await c.page.getByLabel(`Organizations: ${orgs}`).waitFor();
    await c.page.getByRole('img', { name: /Job runs: \d+ finished/ }).waitFor();
    await c.page.getByRole('combobox', { name: 'Period' }).selectOption('day');
    await c.page.getByText('Nothing is running.').waitFor();
    await c.shot('dashboard');
    assert.deepEqual(c.errors, []);
    await c.close();
  });

  it('changes a setting from its category form', async () => {
    const c = await consolePage(t, ADMIN, '/settings');
    await c.page.getByRole('navigation', { name: 'Setting categories' }).getByRole('link', { name: 'Jobs' }).click();
    await c.page.waitForURL(/\/settings\/jobs/);
    const field = c.page.getByLabel('Default Job Timeout', { exact: true });
    await field.fill('123');
    await c.page.getByRole('button', { name: 'Save' }).click();
    await c.page.getByText('Saved.').waitFor();
    assert.equal((await t.get('/api/v2/settings/jobs/')).body.DEFAULT_JOB_TIMEOUT, 123);
    await c.shot('settings-jobs');
    await c.close();
  });

  it('hides Add from a user who may not create, and follows the system dark mode', async () => {
    const plain = await newUser(t);
    const c = await consolePage(t, plain, '/organizations');
    await c.page.getByRole('heading', { name: 'Organizations', level: 1 }).waitFor();
    await c.page.getByRole('heading', { name: 'No organizations yet' }).waitFor();
    assert.equal(await c.page.getByRole('button', { name: 'Add' }).count(), 0);
    await c.page.emulateMedia({ colorScheme: 'dark' });
    await c.page.waitForFunction(() => document.documentElement.classList.contains('pf-v6-theme-dark'));
    await c.shot('organizations-dark-plain-user');
    await c.close();
  });

  it('is usable in a narrow window: the navigation opens from its toggle', async () => {
    const c = await consolePage(t, ADMIN, '/organizations');
    await c.page.setViewportSize({ width: 390, height: 800 });
    await c.page.reload();
    await c.page.getByRole('heading', { name: 'Organizations', level: 1 }).waitFor();
    const nav = c.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Inventories' });
    assert.equal(await nav.isVisible(), false);
    await c.shot('narrow-closed');
    await c.page.getByRole('button', { name: 'Navigation' }).click();
    await nav.waitFor({ state: 'visible' });
    await c.shot('narrow-open');
    await nav.click();
    await c.page.waitForURL(/\/inventories$/);
    await c.shot('inventories-narrow');
    await c.close();
  });
});
