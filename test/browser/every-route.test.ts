import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createTestApp, ADMIN, type TestApp } from '../helpers/app.ts';
import { consolePage, type ConsolePage } from '../helpers/browser.ts';
import { grant, newHost, newInventory, newJobTemplate, newOrg, newProject, newSchedule, newUser, newWorkflow, type User } from '../helpers/factories.ts';
import { waitForRun } from '../helpers/jobs.ts';

/** Lists the console opens from other pages (tabs, links), beside those of the navigation. */
const OTHER_LISTS = ['/labels', '/groups', '/inventory_sources', '/notifications', '/jobs', '/project_updates', '/workflow_jobs', '/fact_snapshots', '/service_requests', '/tenant_quota_events'];

/** A request the console may see refused: a section's list asked once to decide whether to offer it. */
const isNavigationProbe = (url: URL) => url.searchParams.get('page_size') === '1' && /^\/api\/v2\/[a-z_]+\/$/.test(url.pathname);

/** Requests a page has asked and not yet seen answered, by page. */
const pending = new WeakMap<Page, { count: number; changed: number }>();

/**
 * Everything that went wrong on a page: errors and warnings in its console, uncaught errors, failed
 * requests. It also counts the page's requests in flight, for `quiet`.
 */
function watch(page: Page): string[] {
  const problems: string[] = [];
  const inFlight = { count: 0, changed: Date.now() };
  pending.set(page, inFlight);
  const change = (by: number) => {
    inFlight.count += by;
    inFlight.changed = Date.now();
  };
  page.on('request', () => change(1));
  page.on('requestfinished', () => change(-1));
  page.on('requestfailed', () => change(-1));
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (!['error', 'warning'].includes(message.type())) return;
    // A refused request is reported below with its address.
    if (/Failed to load resource/.test(message.text())) return;
    problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (response.status() < 400) return;
    if (response.status() === 403 && isNavigationProbe(url)) return;
    problems.push(`${response.request().method()} ${url.pathname}${url.search} answered ${response.status()}`);
  });
  page.on('requestfailed', (request) => {
    // Leaving a page cancels what it was still asking.
    if (/ERR_ABORTED/.test(request.failure()?.errorText ?? '')) return;
    problems.push(`${request.method()} ${request.url()} failed: ${request.failure()?.errorText}`);
  });
  return problems;
}

/**
 * Waits until the page has had no request in flight for a short while: what networkidle does, with a
 * quiet time of 150 ms instead of 500 (the walks below open some hundred pages).
 */
async function quiet(page: Page): Promise<void> {
  const inFlight = pending.get(page)!;
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline && (inFlight.count > 0 || Date.now() - inFlight.changed < 150)) await page.waitForTimeout(25);
}

/**
 * Moves the console to a path as its own links do (the router follows the history), without
 * loading the page again: a walk of some hundred pages would otherwise spend most of its time
 * starting the console. The first page of a walk, and every page of the other browser tests, is a
 * full load.
 */
async function navigate(page: Page, path: string): Promise<void> {
  await page.evaluate((to) => {
    window.history.pushState({}, '', to);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, path);
  // Two frames: the router has rendered the new route and its requests have started.
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
}

/** Opens a console path and waits until it has shown its heading and nothing is loading any more. */
async function visit(c: ConsolePage, path: string, problems: string[], seen: Map<string, string[]>): Promise<void> {
  const before = problems.length;
  if (new URL(c.page.url()).origin === new URL(c.base).origin && c.page.url() !== 'about:blank') await navigate(c.page, path);
  else await c.open(path);
  await c.page.locator('main h1, main .pf-v6-c-alert').first().waitFor();
  await quiet(c.page);
  await c.page.waitForFunction(() => !document.querySelector('main [role="progressbar"]'), undefined, { timeout: 15_000 }).catch(() => undefined);
  const text = await c.page.locator('main').innerText();
  if (/Something went wrong|Not allowed/.test(text)) problems.push(`${path} shows: ${text.split('\n').find((l) => /Something went wrong|Not allowed/.test(l))}`);
  if (problems.length > before) seen.set(path, problems.splice(before));
}

/** Clicks through every tab of the detail page on screen. */
async function visitTabs(c: ConsolePage, path: string, problems: string[], seen: Map<string, string[]>): Promise<void> {
  const tabs = await c.page.locator('main [role="tab"] a, main a[role="tab"]').evaluateAll((links) => links.map((a) => a.getAttribute('href')).filter((h): h is string => !!h));
  for (const tab of tabs) if (tab !== path && tab.startsWith(path)) await visit(c, tab, problems, seen);
}

describe('console: every route for every role', () => {
  let t: TestApp;
  let auditor: User;
  let member: User;
  /** Pages of no API list of their own, opened by every role: a catalog item's request form. */
  const otherPages: string[] = [];

  before(async () => {
    t = await createTestApp();
    const org = await newOrg(t, { name: 'Routes org' });
    auditor = await newUser(t, { username: 'routes-auditor', is_system_auditor: true });
    member = await newUser(t, { username: 'routes-member' });
    await grant(t, member, org, 'member_role');
    const project = await newProject(t, org, { name: 'Routes project' });
    const inventory = await newInventory(t, org, { name: 'Routes inventory', hosts: ['routes-host'] });
    await newHost(t, inventory, { name: 'second-host' });
    await t.post(`/api/v2/inventories/${inventory.id}/groups/`, { name: 'routes-group' });
    const template = await newJobTemplate(t, { project, inventory, name: 'Routes template' });
    await grant(t, member, template, 'execute_role');
    await newWorkflow(t, org, { name: 'Routes workflow' });
    await newSchedule(t, template, { name: 'Routes schedule' });
    await t.post('/api/v2/labels/', { name: 'routes-label', organization: org.id });
    await t.post('/api/v2/teams/', { name: 'Routes team', organization: org.id });
    const machine = (await t.get('/api/v2/credential_types/?namespace=ssh')).body.results[0];
    await t.post('/api/v2/credentials/', { name: 'Routes credential', credential_type: machine.id, organization: org.id, inputs: { username: 'u' } });
    // A scanner reads the launch below: the scanners' pages, the scan results and the job's Scan tab have something to show.
    assert.equal((await t.patch('/api/v2/settings/security/', { SCANNER_ENABLED: true })).status, 200);
    const scanner = await t.post('/api/v2/scanners/', { name: 'Routes scanner', organization: org.id, tool: 'ansible-lint' });
    assert.equal(scanner.status, 201, scanner.text);
    const launched = await t.post(`/api/v2/job_templates/${template.id}/launch/`, {});
    await waitForRun(t, `/api/v2/jobs/${launched.body.job}/`);
    // A catalog item whose request waits for an approver: the portal's pages and the approvals inbox have something to show.
    const item = await t.post('/api/v2/service_catalog_items/', { name: 'Routes item', organization: org.id, job_template: template.id, category: 'Routes', requires_approval: true });
    assert.equal(item.status, 201, item.text);
    const request = await t.post(`/api/v2/service_catalog_items/${item.body.id}/submit/`, { justification: 'routes' }, { as: member });
    assert.equal(request.status, 201, request.text);
    otherPages.push(`/catalog/${item.body.id}`);
    // A tenant (superusers' only) with quotas and branding, and a quota decision of it.
    const tenant = await t.post('/api/v2/tenants/', {
      name: 'Routes tenant', admin_username: 'routes-tenant-admin', admin_email: 'routes-tenant@example.com',
      quota: { max_hosts: 10 }, branding: { primary_color: '#336699', custom_domain: 'routes.example.com' },
    });
    assert.equal(tenant.status, 201, tenant.text);
    await t.db.query(
      `INSERT INTO tenant_quota_events (tenant_id, organization_id, quota_kind, decision, quota_limit, usage, action, message) VALUES ($1, $2, 'max_hosts', 'allow', 10, 0, 'host', 'routes')`,
      [tenant.body.id, tenant.body.organization],
    );
  });
  after(() => t.close());

  /** Every list of the navigation the user is offered, one object of each and its form, the settings. */
  async function everyRoute(who: User | typeof ADMIN, name: string, options: { tabs: boolean }): Promise<Map<string, string[]>> {
    const c = await consolePage(t, who, '/');
    const problems = watch(c.page);
    const seen = new Map<string, string[]>();
    try {
      await visit(c, '/', problems, seen);
      await c.page.getByRole('list', { name: 'Recent templates' }).or(c.page.getByText('No templates yet')).first().waitFor();
      await c.shot(`dashboard-${name}`);
      const offered = await c.page.getByRole('navigation', { name: 'Main' }).getByRole('link').evaluateAll((links) => links.map((a) => new URL((a as HTMLAnchorElement).href).pathname));
      for (const list of [...new Set([...offered.filter((p) => p !== '/'), ...OTHER_LISTS])]) {
        if (list === '/settings') continue;
        await visit(c, list, problems, seen);
        const api = await t.get(`/api/v2${list}/?page_size=1&order_by=-id`, { as: who });
        if (api.status !== 200) continue;
        const object = api.body.results[0];
        if (object) {
          await visit(c, `${list}/${object.id}`, problems, seen);
          if (options.tabs) await visitTabs(c, `${list}/${object.id}`, problems, seen);
          if (object.summary_fields?.user_capabilities?.edit) await visit(c, `${list}/${object.id}/edit`, problems, seen);
        }
        const described = await t.request('OPTIONS', `/api/v2${list}/`, { as: who });
        if (described.body.actions?.POST) await visit(c, `${list}/add`, problems, seen);
      }
      for (const path of otherPages) await visit(c, path, problems, seen);
      if (offered.includes('/settings')) {
        await visit(c, '/settings', problems, seen);
        const categories = (await t.get('/api/v2/settings/', { as: who })).body.results as { slug: string }[];
        for (const { slug } of categories) await visit(c, `/settings/${slug}`, problems, seen);
      }
      return seen;
    } finally {
      await c.close();
    }
  }

  const report = (seen: Map<string, string[]>) => [...seen].map(([path, problems]) => `${path}:\n  ${problems.join('\n  ')}`).join('\n');

  it('notices a page that fails (what the walks below rely on)', async () => {
    const c = await consolePage(t, ADMIN, '/');
    const problems = watch(c.page);
    const seen = new Map<string, string[]>();
    try {
      await visit(c, '/organizations/999999', problems, seen);
      assert.match(report(seen), /GET \/api\/v2\/organizations\/999999\/ answered 404/);
    } finally {
      await c.close();
    }
  });

  it('a superuser opens every route, tab and form without an error', async () => {
    const seen = await everyRoute(ADMIN, 'superuser', { tabs: true });
    assert.equal(report(seen), '');
  });

  it('a system auditor opens every route offered without an error', async () => {
    const seen = await everyRoute(auditor, 'auditor', { tabs: false });
    assert.equal(report(seen), '');
  });

  it('a plain member of one organization is offered only what the API lets them open, and it all opens', async () => {
    const c = await consolePage(t, member, '/');
    try {
      const nav = c.page.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Templates', exact: true }).waitFor();
      for (const hidden of ['Settings', 'Management jobs', 'Instances', 'Instance groups', 'Notifications']) {
        assert.equal(await nav.getByRole('link', { name: hidden, exact: true }).count(), 0, `${hidden} is not offered`);
      }
      assert.equal((await t.get('/api/v2/settings/', { as: member })).status, 403);
      assert.equal((await t.get('/api/v2/system_job_templates/', { as: member })).status, 403);
    } finally {
      await c.close();
    }
    const admin = await consolePage(t, ADMIN, '/');
    try {
      const nav = admin.page.getByRole('navigation', { name: 'Main' });
      for (const shown of ['Settings', 'Management jobs', 'Instances', 'Instance groups', 'Notifications', 'Applications']) await nav.getByRole('link', { name: shown, exact: true }).waitFor();
    } finally {
      await admin.close();
    }
    const seen = await everyRoute(member, 'member', { tabs: false });
    assert.equal(report(seen), '');
  });
});
