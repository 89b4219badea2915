import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { newHost, newInventory, newJobTemplate, newOrg, newUser, type User } from '../helpers/factories.ts';
import { consolePage } from '../helpers/browser.ts';

const DAY_MS = 86_400_000;

/** [host, ok, changed, failures] of a job's play recap. */
type Recap = [host: string, ok: number, changed: number, failures: number];
interface Run { template: string; status: string; daysAgo: number; elapsed: number; hosts: Recap[] }

// Three jobs in the past week, five in the past month, all of organization "Analytics org".
const RUNS: Run[] = [
  { template: 'Ana deploy', status: 'successful', daysAgo: 1, elapsed: 600, hosts: [['web1', 2, 1, 0], ['web2', 2, 0, 0]] },
  { template: 'Ana deploy', status: 'failed', daysAgo: 2, elapsed: 60, hosts: [['web1', 1, 0, 1]] },
  { template: 'Ana patch', status: 'successful', daysAgo: 3, elapsed: 300, hosts: [['db1', 4, 4, 0]] },
  { template: 'Ana patch', status: 'successful', daysAgo: 12, elapsed: 1200, hosts: [['web1', 3, 0, 0]] },
  { template: 'Ana deploy', status: 'error', daysAgo: 20, elapsed: 30, hosts: [] },
];

const noonDaysAgo = (days: number) => new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - days * DAY_MS + 12 * 3_600_000);

/** A figure as the page's tables show it (ui/src/pages/analytics/FigureTable.tsx). */
const figure = (value: number | null, unit = '') => (value === null ? '–' : `${value}${unit}`);

/** The cells of the table named `caption`, row by row (PatternFly gives them the role grid; screen readers read them whether shown or not). */
const cells = (page: Page, caption: string) =>
  page.locator(`table[aria-label="${caption}"]`).locator('tbody tr').evaluateAll((rows) => rows.map((tr) => [...(tr as HTMLTableRowElement).cells].map((td) => td.textContent?.trim() ?? '')));

/** Waits until the table named `caption` holds `expected` (it changes once the page's next answer is in). */
async function tableHolds(page: Page, caption: string, expected: string[][]): Promise<void> {
  const deadline = Date.now() + 15_000;
  let seen: string[][] = [];
  while (Date.now() < deadline) {
    seen = await cells(page, caption);
    if (JSON.stringify(seen) === JSON.stringify(expected)) return;
    await page.waitForTimeout(50);
  }
  assert.deepEqual(seen, expected, caption);
}

describe('console: service analytics', () => {
  let t: TestApp;
  let otherAdmin: User;
  let plain: User;

  before(async () => {
    t = await createTestApp();
    const org = await newOrg(t, { name: 'Analytics org' });
    otherAdmin = await newUser(t, { username: 'analytics-other-admin', admin: await newOrg(t, { name: 'Analytics elsewhere' }) });
    plain = await newUser(t, { username: 'analytics-plain' });
    await mkdir(path.join(t.env.projectsRoot, 'ana-plays'), { recursive: true });
    await writeFile(path.join(t.env.projectsRoot, 'ana-plays', 'hello.yml'), '- hosts: all\n  tasks: []\n');
    const project = (await t.post('/api/v2/projects/', { name: 'Ana plays', organization: org.id, local_path: 'ana-plays' })).body;
    const inventory = await newInventory(t, org, { name: 'Ana servers' });
    const hosts: Record<string, number> = {};
    for (const name of ['web1', 'web2', 'db1', 'idle1']) hosts[name] = (await newHost(t, inventory, { name })).id;
    const templates: Record<string, number> = {};
    for (const name of ['Ana deploy', 'Ana patch']) templates[name] = (await newJobTemplate(t, { name, project, inventory })).id;
    for (const run of RUNS) {
      const finished = noonDaysAgo(run.daysAgo).toISOString();
      const [{ id }] = await t.db.query<{ id: number }>(
        `INSERT INTO unified_jobs (kind, name, status, failed, elapsed, created, started, finished, job_template_id, unified_job_template_id, organization_id)
         VALUES ('job', $1, $2, $3, $4, $5, $5, $5, $6, $6, $7) RETURNING id`,
        [run.template, run.status, ['failed', 'error'].includes(run.status), run.elapsed, finished, templates[run.template], org.id],
      );
      for (const [host, ok, changed, failures] of run.hosts) {
        await t.db.query(
          `INSERT INTO job_host_summaries (job_id, host_id, host_name, ok, changed, failures, skipped, dark, failed) VALUES ($1, $2, $3, $4, $5, $6, 0, 0, $7)`,
          [id, hosts[host], host, ok, changed, failures, failures > 0],
        );
      }
    }
  });
  after(() => t?.close());

  /** What each table of the page should hold, from the API's answers for the same period (and multiplier). */
  async function expectedTables(period: string, multiplier = 10, who?: User): Promise<Record<string, string[][]>> {
    const get = async (endpoint: string, query = '') => {
      const res = await t.get(`/api/v2/svc_analytics/${endpoint}/?period=${period}${query}`, who ? { as: who } : {});
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    const trends = await get('job_trends');
    const rates = await get('success_rate');
    const templates = await get('top_templates');
    const hosts = await get('busiest_hosts');
    const coverage = await get('host_coverage');
    const failures = await get('failure_analysis');
    const saved = await get('time_savings', `&manual_multiplier=${multiplier}`);
    return {
      'Job trends': trends.map((b: any) => [b.date, `${b.job_count}`, `${b.successful}`, `${b.failed}`, figure(b.avg_duration)]),
      'Success rate': rates.map((b: any) => [b.date, `${b.total}`, `${b.successful}`, `${b.failed}`, `${b.error}`, `${b.canceled}`, figure(b.success_rate, '%')]),
      'Top templates': templates.map((r: any) => [r.template_name, `${r.run_count}`, figure(r.avg_duration), figure(r.success_rate, '%')]),
      'Busiest hosts': hosts.map((r: any) => [r.host_name, `${r.job_count}`, `${r.total_ok}`, `${r.total_changed}`, `${r.total_failures}`, `${r.total_skipped}`]),
      'Host coverage': coverage.by_inventory.map((r: any) => [r.inventory_name, `${r.total_hosts}`, `${r.automated_hosts}`, figure(r.coverage_pct, '%')]),
      'Failures by template': failures.by_template.map((r: any) => [r.template_name, `${r.run_count}`, `${r.failed_count}`, figure(r.failure_rate, '%')]),
      'Failures by host': failures.by_host.map((r: any) => [r.host_name, `${r.job_count}`, `${r.failed_count}`, figure(r.failure_rate, '%')]),
      'Time saved': [
        ['Successful jobs', saved.successful_jobs], ['Automation hours', saved.automation_hours], ['Manual hours', saved.manual_hours], ['Hours saved', saved.saved_hours],
        ['Average automation minutes', saved.avg_automation_minutes], ['Average minutes saved', saved.avg_saved_minutes], ['Hours saved per day', saved.saved_hours_per_day],
      ].map(([term, value]) => [term, `${value}`]),
    };
  }

  it('the dashboard and the navigation lead to it, and its tables hold the API\'s numbers', async () => {
    const c = await consolePage(t);
    try {
      await c.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Analytics', exact: true }).waitFor();
      await c.page.getByRole('main').getByRole('link', { name: 'Analytics', exact: true }).click();
      await c.page.waitForURL((url) => url.pathname === '/analytics');
      await c.page.getByRole('heading', { level: 1, name: 'Analytics' }).waitFor();
      const month = await expectedTables('month');
      assert.equal(month['Top templates'].length, 2);
      assert.deepEqual(month['Top templates'].map((r) => r[1]), ['3', '2']);
      for (const [caption, rows] of Object.entries(month)) await tableHolds(c.page, caption, rows);
      const trends = c.page.getByRole('region', { name: 'Job trends' });
      assert.match(await trends.getByRole('img').getAttribute('aria-label') ?? '', /^Job trends: 5 jobs finished, 3 successful, 1 failed, over 30 days$/);
      // The table is left to screen readers until asked for on screen.
      assert.equal(await trends.locator('.pf-v6-screen-reader table').count(), 1);
      await trends.getByRole('switch', { name: 'Show job trends as a table' }).check({ force: true });
      await trends.locator('.pf-v6-screen-reader table').waitFor({ state: 'detached' });
      assert.ok(((await trends.locator('table').boundingBox())?.height ?? 0) > 100);
      await c.shot('analytics-month');

      await c.page.getByRole('combobox', { name: 'Granularity' }).selectOption('week');
      const weeks = (await t.get('/api/v2/svc_analytics/job_trends/?period=month&granularity=week')).body;
      await tableHolds(c.page, 'Job trends', weeks.map((b: any) => [b.date, `${b.job_count}`, `${b.successful}`, `${b.failed}`, figure(b.avg_duration)]));

      await c.page.getByRole('combobox', { name: 'Granularity' }).selectOption('day');
      await c.page.getByRole('combobox', { name: 'Period' }).selectOption('week');
      await c.page.waitForURL((url) => url.searchParams.get('period') === 'week');
      const week = await expectedTables('week');
      assert.deepEqual(week['Top templates'].map((r) => [r[0], r[1]]), [['Ana deploy', '2'], ['Ana patch', '1']]);
      for (const [caption, rows] of Object.entries(week)) await tableHolds(c.page, caption, rows);
      assert.notDeepEqual(week['Time saved'], month['Time saved']);
    } finally {
      await c.close();
    }
  });

  it('asks the time saved again, once typing stops, when the multiplier changes; a bad one shows the API\'s message', async () => {
    const c = await consolePage(t, undefined, '/analytics?period=month');
    try {
      const asked: string[] = [];
      c.page.on('request', (request) => {
        const url = new URL(request.url());
        if (url.pathname === '/api/v2/svc_analytics/time_savings/') asked.push(url.searchParams.get('manual_multiplier') ?? '');
      });
      await tableHolds(c.page, 'Time saved', (await expectedTables('month', 10))['Time saved']);
      const input = c.page.getByRole('spinbutton', { name: 'Manual multiplier' });
      await input.fill('');
      await input.pressSequentially('25');
      const expected = (await expectedTables('month', 25))['Time saved'];
      assert.notDeepEqual(expected, (await expectedTables('month', 10))['Time saved']);
      await tableHolds(c.page, 'Time saved', expected);
      assert.ok(!asked.includes('2'), `asked for ${asked.join(', ')}`);
      assert.ok(asked.includes('25'));

      await input.fill('0');
      await c.page.getByRole('region', { name: 'Time saved' }).getByRole('alert').getByText('manual_multiplier: give a number above 0 and at most 1000.').waitFor();
      await input.fill('2.5');
      await tableHolds(c.page, 'Time saved', (await expectedTables('month', 2.5))['Time saved']);
    } finally {
      await c.close();
    }
  });

  it('shows another organization\'s admin none of the jobs', async () => {
    const c = await consolePage(t, otherAdmin, '/analytics?period=year');
    try {
      await c.page.getByRole('heading', { level: 1, name: 'Analytics' }).waitFor();
      for (const title of ['Job trends', 'Success rate', 'Top templates', 'Busiest hosts', 'Failure analysis']) {
        await c.page.getByRole('region', { name: title }).locator('[data-empty]').waitFor();
      }
      await c.page.getByRole('region', { name: 'Host coverage' }).getByText('No hosts to show.').waitFor();
      const yearly = await expectedTables('year', 10, otherAdmin);
      assert.deepEqual(yearly['Top templates'], []);
      await tableHolds(c.page, 'Time saved', yearly['Time saved']);
      assert.equal(yearly['Time saved'][0][1], '0');
      const text = await c.page.getByRole('main').innerText();
      for (const seeded of ['Ana deploy', 'Ana patch', 'web1', 'db1', 'Ana servers']) assert.ok(!text.includes(seeded), `${seeded} is not shown`);
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });

  it('asks only the periods it offers: another one in the address shows the past month, to a plain user nothing', async () => {
    const hostile = '<img src=x onerror=alert(1)>';
    const c = await consolePage(t, plain, `/analytics?period=${encodeURIComponent(hostile)}`);
    try {
      const periods: string[] = [];
      c.page.on('request', (request) => {
        const url = new URL(request.url());
        if (/^\/api\/v2\/svc_analytics\/[a-z_]+\/$/.test(url.pathname)) periods.push(url.searchParams.get('period') ?? '');
      });
      await c.page.reload();
      await c.page.getByRole('heading', { level: 1, name: 'Analytics' }).waitFor();
      assert.equal(await c.page.getByRole('combobox', { name: 'Period' }).inputValue(), 'month');
      await tableHolds(c.page, 'Time saved', (await expectedTables('month', 10, plain))['Time saved']);
      await c.page.getByRole('region', { name: 'Top templates' }).locator('[data-empty]').waitFor();
      assert.ok(periods.length >= 7 && periods.every((p) => p === 'month'), `asked ${periods.join(', ')}`);
      assert.equal(await c.page.locator('main img').count(), 0);
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });
});
