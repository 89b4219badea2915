import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { grant, newHost, newInventory, newJobTemplate, newOrg, newUser, type User } from './helpers/factories.ts';

const DAY_MS = 86_400_000;
const URL = '/api/v2/svc_analytics/';
const ENDPOINTS = ['job_trends', 'success_rate', 'top_templates', 'busiest_hosts', 'host_coverage', 'failure_analysis', 'time_savings'];

/** [ok, changed, failures, skipped, dark] of a host in a job. */
type Summary = [host: string, ok: number, changed: number, failures: number, skipped: number, dark?: number];
interface Run { template: string; status: string; daysAgo: number | null; elapsed: number; hosts?: Summary[]; kind?: string }

// The history, numbered as the hand computations below refer to it. Runs end at noon UTC of their day.
const RUNS: Run[] = [
  /* 1 */ { template: 'deploy', status: 'successful', daysAgo: 0, elapsed: 60, hosts: [['a1', 3, 1, 0, 0], ['a2', 3, 0, 0, 0]] },
  /* 2 */ { template: 'deploy', status: 'successful', daysAgo: 1, elapsed: 120, hosts: [['a1', 2, 2, 0, 0]] },
  /* 3 */ { template: 'deploy', status: 'failed', daysAgo: 1, elapsed: 30, hosts: [['a1', 1, 0, 1, 0], ['a2', 2, 0, 0, 0]] },
  /* 4 */ { template: 'patch', status: 'successful', daysAgo: 2, elapsed: 600, hosts: [['a3', 5, 5, 0, 1]] },
  /* 5 */ { template: 'patch', status: 'error', daysAgo: 3, elapsed: 10 },
  /* 6 */ { template: 'patch', status: 'canceled', daysAgo: 5, elapsed: 20 },
  /* 7 */ { template: 'deploy', status: 'successful', daysAgo: 10, elapsed: 300, hosts: [['a1', 4, 0, 0, 0]] },
  /* 8 */ { template: 'patch', status: 'failed', daysAgo: 20, elapsed: 40, hosts: [['a3', 0, 0, 2, 0], ['a4', 0, 0, 0, 0, 1]] },
  /* 9 */ { template: 'deploy', status: 'successful', daysAgo: 60, elapsed: 3600, hosts: [['a2', 1, 0, 0, 0]] },
  /* 10 */ { template: 'patch', status: 'successful', daysAgo: 200, elapsed: 7200, hosts: [['a4', 1, 0, 0, 0]] },
  /* 11 */ { template: 'deploy', status: 'successful', daysAgo: 400, elapsed: 100, hosts: [['a1', 1, 0, 0, 0]] },
  /* 12 */ { template: 'deploy', status: 'running', daysAgo: null, elapsed: 0 },
  /* 13 */ { template: 'deploy', status: 'successful', daysAgo: 1, elapsed: 5000, kind: 'workflow_job' },
  /* 14 */ { template: 'backup', status: 'successful', daysAgo: 1, elapsed: 50, hosts: [['b1', 2, 0, 0, 0]] },
  /* 15 */ { template: 'backup', status: 'failed', daysAgo: 2, elapsed: 70, hosts: [['b1', 0, 0, 1, 0], ['b2', 1, 0, 0, 0]] },
  /* 16 */ { template: 'backup', status: 'successful', daysAgo: 25, elapsed: 90, hosts: [['b2', 1, 0, 0, 0]] },
];

const noonDaysAgo = (days: number) => new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - days * DAY_MS + 12 * 3_600_000);
const isoDay = (days: number) => noonDaysAgo(days).toISOString().slice(0, 10);

describe('service analytics', () => {
  let t: TestApp;
  let orgAdmin: User;
  let plain: User;
  let otherAdmin: User;
  const templates: Record<string, number> = {};

  before(async () => {
    t = await createTestApp();
    const a = await newOrg(t, { name: 'Alpha' });
    const b = await newOrg(t, { name: 'Beta' });
    orgAdmin = await newUser(t, { admin: a });
    otherAdmin = await newUser(t, { admin: b });
    plain = await newUser(t);
    await mkdir(path.join(t.env.projectsRoot, 'plays'), { recursive: true });
    await writeFile(path.join(t.env.projectsRoot, 'plays', 'hello.yml'), '- hosts: all\n  tasks: []\n');
    const hosts: Record<string, number> = {};
    const inventories: Record<string, number> = {};
    const org: Record<string, any> = {};
    for (const [owner, inventoryName, names] of [[a, 'alpha-main', ['a1', 'a2', 'a3', 'a4']], [a, 'alpha-spare', ['a5']], [b, 'beta-main', ['b1', 'b2']]] as const) {
      const inventory = await newInventory(t, owner, { name: inventoryName });
      inventories[inventoryName] = inventory.id;
      for (const name of names) hosts[name] = (await newHost(t, inventory, { name })).id;
    }
    const projectA = (await t.post('/api/v2/projects/', { name: 'plays-a', organization: a.id, local_path: 'plays' })).body;
    await mkdir(path.join(t.env.projectsRoot, 'plays-b'), { recursive: true });
    await writeFile(path.join(t.env.projectsRoot, 'plays-b', 'hello.yml'), '- hosts: all\n  tasks: []\n');
    const projectB = (await t.post('/api/v2/projects/', { name: 'plays-b', organization: b.id, local_path: 'plays-b' })).body;
    for (const [name, project, inventory, owner] of [['deploy', projectA, 'alpha-main', a], ['patch', projectA, 'alpha-main', a], ['backup', projectB, 'beta-main', b]] as const) {
      templates[name] = (await newJobTemplate(t, { name, project, inventory: inventories[inventory] })).id;
      org[name] = owner;
    }
    await grant(t, plain, `/api/v2/job_templates/${templates.patch}/`, 'read_role');
    for (const run of RUNS) {
      const finished = run.daysAgo === null ? null : noonDaysAgo(run.daysAgo).toISOString();
      const [{ id }] = await t.db.query<{ id: number }>(
        `INSERT INTO unified_jobs (kind, name, status, failed, elapsed, created, started, finished, job_template_id, unified_job_template_id, organization_id)
         VALUES ($1, $2, $3, $4, $5, coalesce($6::timestamptz, now()), $6::timestamptz, $6::timestamptz, $7, $7, $8) RETURNING id`,
        [run.kind ?? 'job', run.template, run.status, ['failed', 'error'].includes(run.status), run.elapsed, finished, run.kind ? null : templates[run.template], org[run.template].id],
      );
      for (const [host, ok, changed, failures, skipped, dark = 0] of run.hosts ?? []) {
        await t.db.query(
          `INSERT INTO job_host_summaries (job_id, host_id, host_name, ok, changed, failures, skipped, dark, failed) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
          [id, hosts[host], host, ok, changed, failures, skipped, dark, failures > 0 || dark > 0],
        );
      }
    }
  });
  after(() => t.close());

  const get = async (endpoint: string, who?: User) => {
    const res = await t.get(`${URL}${endpoint}`, who ? { as: who } : {});
    assert.equal(res.status, 200, `${endpoint}: ${res.text}`);
    return res.body;
  };

  it('is listed at the API root and links to its seven endpoints', async () => {
    assert.equal((await t.get('/api/v2/')).body.svc_analytics, URL);
    assert.deepEqual(await get(''), Object.fromEntries(ENDPOINTS.map((e) => [e, `${URL}${e}/`])));
  });

  it('needs credentials', async () => {
    for (const endpoint of ['', ...ENDPOINTS.map((e) => `${e}/`)]) assert.equal((await t.get(`${URL}${endpoint}`, { as: null })).status, 401, endpoint);
  });

  describe('an organization admin sees their organization\'s jobs', () => {
    it('job_trends: the month by day, buckets without jobs included', async () => {
      const days = await get('job_trends/', orgAdmin);
      assert.equal(days.length, 30);
      assert.equal(days.at(-1).date, isoDay(0));
      assert.equal(days[0].date, isoDay(29));
      const busy = days.filter((d: any) => d.job_count > 0);
      assert.deepEqual(busy, [
        { date: isoDay(20), job_count: 1, avg_duration: 40, successful: 0, failed: 1 },
        { date: isoDay(10), job_count: 1, avg_duration: 300, successful: 1, failed: 0 },
        { date: isoDay(5), job_count: 1, avg_duration: 20, successful: 0, failed: 0 },
        { date: isoDay(3), job_count: 1, avg_duration: 10, successful: 0, failed: 0 },
        { date: isoDay(2), job_count: 1, avg_duration: 600, successful: 1, failed: 0 },
        { date: isoDay(1), job_count: 2, avg_duration: 75, successful: 1, failed: 1 },
        { date: isoDay(0), job_count: 1, avg_duration: 60, successful: 1, failed: 0 },
      ]);
      assert.deepEqual(days[1], { date: isoDay(28), job_count: 0, avg_duration: null, successful: 0, failed: 0 });
    });

    it('job_trends: by week (Mondays) and month, over other periods', async () => {
      const weeks = await get('job_trends/?granularity=week&period=quarter', orgAdmin);
      for (const week of weeks) assert.equal(new Date(`${week.date}T00:00:00Z`).getUTCDay(), 1, week.date);
      assert.equal(weeks.reduce((sum: number, w: any) => sum + w.job_count, 0), 9, 'jobs 1 to 9');
      const months = await get('job_trends/?granularity=month&period=year', orgAdmin);
      for (const month of months) assert.match(month.date, /^\d{4}-\d{2}-01$/);
      assert.equal(months.reduce((sum: number, m: any) => sum + m.job_count, 0), 10, 'jobs 1 to 10; not 11 (400 days ago) nor 12 (running)');
      assert.equal(months.at(-1).date, `${isoDay(0).slice(0, 8)}01`);
      const week = await get('job_trends/?period=week', orgAdmin);
      assert.equal(week.length, 7);
      assert.equal(week.reduce((sum: number, d: any) => sum + d.job_count, 0), 6);
      assert.equal((await get('job_trends/?period=two_weeks', orgAdmin)).reduce((sum: number, d: any) => sum + d.job_count, 0), 7);
    });

    it('success_rate: statuses per day with the percentage successful', async () => {
      const days = await get('success_rate/', orgAdmin);
      assert.equal(days.length, 30);
      const byDate = new Map(days.map((d: any) => [d.date, d]));
      assert.deepEqual(byDate.get(isoDay(1)), { date: isoDay(1), total: 2, successful: 1, failed: 1, error: 0, canceled: 0, success_rate: 50 });
      assert.deepEqual(byDate.get(isoDay(3)), { date: isoDay(3), total: 1, successful: 0, failed: 0, error: 1, canceled: 0, success_rate: 0 });
      assert.deepEqual(byDate.get(isoDay(5)), { date: isoDay(5), total: 1, successful: 0, failed: 0, error: 0, canceled: 1, success_rate: 0 });
      assert.deepEqual(byDate.get(isoDay(4)), { date: isoDay(4), total: 0, successful: 0, failed: 0, error: 0, canceled: 0, success_rate: null });
      const months = await get('success_rate/?granularity=month&period=week', orgAdmin);
      const sum = (key: string) => months.reduce((total: number, m: any) => total + m[key], 0);
      assert.deepEqual(['total', 'successful', 'failed', 'error', 'canceled'].map(sum), [6, 3, 1, 1, 1]);
    });

    it('top_templates: runs, average duration and success rate per template', async () => {
      assert.deepEqual(await get('top_templates/', orgAdmin), [
        { template_id: templates.deploy, template_name: 'deploy', run_count: 4, avg_duration: 127.5, success_rate: 75 },
        { template_id: templates.patch, template_name: 'patch', run_count: 4, avg_duration: 167.5, success_rate: 25 },
      ]);
      assert.deepEqual((await get('top_templates/?limit=1&period=week', orgAdmin)).map((r: any) => [r.template_name, r.run_count]), [['deploy', 3]]);
    });

    it('busiest_hosts: jobs and task results per host', async () => {
      assert.deepEqual(await get('busiest_hosts/', orgAdmin), [
        { host_name: 'a1', job_count: 4, total_ok: 10, total_changed: 3, total_failures: 1, total_skipped: 0 },
        { host_name: 'a2', job_count: 2, total_ok: 5, total_changed: 0, total_failures: 0, total_skipped: 0 },
        { host_name: 'a3', job_count: 2, total_ok: 5, total_changed: 5, total_failures: 2, total_skipped: 1 },
        { host_name: 'a4', job_count: 1, total_ok: 0, total_changed: 0, total_failures: 0, total_skipped: 0 },
      ]);
    });

    it('host_coverage: the hosts a job reached, per inventory', async () => {
      assert.deepEqual(await get('host_coverage/', orgAdmin), {
        total_hosts: 5, automated_hosts: 4, coverage_pct: 80,
        by_inventory: [
          { inventory_id: (await t.get('/api/v2/inventories/?name=alpha-main')).body.results[0].id, inventory_name: 'alpha-main', total_hosts: 4, automated_hosts: 4, coverage_pct: 100 },
          { inventory_id: (await t.get('/api/v2/inventories/?name=alpha-spare')).body.results[0].id, inventory_name: 'alpha-spare', total_hosts: 1, automated_hosts: 0, coverage_pct: 0 },
        ],
      });
      const week = await get('host_coverage/?period=week', orgAdmin);
      assert.deepEqual([week.total_hosts, week.automated_hosts, week.coverage_pct], [5, 3, 60]);
    });

    it('failure_analysis: templates and hosts by failed jobs', async () => {
      assert.deepEqual(await get('failure_analysis/', orgAdmin), {
        by_template: [
          { template_id: templates.patch, template_name: 'patch', run_count: 4, failed_count: 2, failure_rate: 50 },
          { template_id: templates.deploy, template_name: 'deploy', run_count: 4, failed_count: 1, failure_rate: 25 },
        ],
        by_host: [
          { host_name: 'a1', job_count: 4, failed_count: 1, failure_rate: 25 },
          { host_name: 'a3', job_count: 2, failed_count: 1, failure_rate: 50 },
          { host_name: 'a4', job_count: 1, failed_count: 1, failure_rate: 100 },
        ],
      });
    });

    it('time_savings: T of the successful jobs, by hand T × multiplier, saved the difference', async () => {
      // Jobs 1, 2, 4, 7: 60 + 120 + 600 + 300 = 1080 s = 0.3 h.
      assert.deepEqual(await get('time_savings/', orgAdmin), {
        period: 'month', manual_multiplier: 10, successful_jobs: 4,
        automation_hours: 0.3, manual_hours: 3, saved_hours: 2.7,
        avg_automation_minutes: 4.5, avg_saved_minutes: 40.5, saved_hours_per_day: 0.09,
      });
      const custom = await get('time_savings/?manual_multiplier=2.5', orgAdmin);
      assert.deepEqual([custom.manual_multiplier, custom.manual_hours, custom.saved_hours, custom.avg_saved_minutes], [2.5, 0.75, 0.45, 6.75]);
    });
  });

  it('a superuser sees every organization\'s jobs, never workflow jobs', async () => {
    const days = await get('job_trends/');
    assert.equal(days.reduce((sum: number, d: any) => sum + d.job_count, 0), 11, 'jobs 1 to 8 and 14 to 16');
    assert.equal(days.find((d: any) => d.date === isoDay(1)).job_count, 3, 'jobs 2, 3 and 14, not the workflow job 13');
    assert.deepEqual((await get('top_templates/?period=year')).map((r: any) => [r.template_name, r.run_count]), [['deploy', 5], ['patch', 5], ['backup', 3]]);
    const coverage = await get('host_coverage/');
    assert.deepEqual([coverage.total_hosts, coverage.automated_hosts, coverage.coverage_pct], [7, 6, 85.71]);
    assert.equal((await get('time_savings/')).successful_jobs, 6);
  });

  it('a plain user with read on one template sees only its jobs', async () => {
    assert.deepEqual(await get('top_templates/', plain), [{ template_id: templates.patch, template_name: 'patch', run_count: 4, avg_duration: 167.5, success_rate: 25 }]);
    assert.deepEqual(await get('busiest_hosts/', plain), [
      { host_name: 'a3', job_count: 2, total_ok: 5, total_changed: 5, total_failures: 2, total_skipped: 1 },
      { host_name: 'a4', job_count: 1, total_ok: 0, total_changed: 0, total_failures: 0, total_skipped: 0 },
    ]);
    assert.deepEqual(await get('failure_analysis/', plain), {
      by_template: [{ template_id: templates.patch, template_name: 'patch', run_count: 4, failed_count: 2, failure_rate: 50 }],
      by_host: [{ host_name: 'a3', job_count: 2, failed_count: 1, failure_rate: 50 }, { host_name: 'a4', job_count: 1, failed_count: 1, failure_rate: 100 }],
    });
    const savings = await get('time_savings/', plain);
    assert.deepEqual([savings.successful_jobs, savings.automation_hours, savings.manual_hours, savings.saved_hours], [1, 0.17, 1.67, 1.5]);
    assert.equal((await get('job_trends/', plain)).reduce((sum: number, d: any) => sum + d.job_count, 0), 4);
    // Reading a template grants no inventory: no host of it counts.
    assert.deepEqual(await get('host_coverage/', plain), { total_hosts: 0, automated_hosts: 0, coverage_pct: null, by_inventory: [] });
  });

  it('another organization\'s admin sees none of Alpha\'s jobs or hosts', async () => {
    assert.deepEqual(await get('top_templates/', otherAdmin), [{ template_id: templates.backup, template_name: 'backup', run_count: 3, avg_duration: 70, success_rate: 66.67 }]);
    assert.deepEqual((await get('busiest_hosts/', otherAdmin)).map((h: any) => [h.host_name, h.job_count]), [['b1', 2], ['b2', 2]]);
    const coverage = await get('host_coverage/', otherAdmin);
    assert.deepEqual([coverage.total_hosts, coverage.automated_hosts, coverage.by_inventory.map((i: any) => i.inventory_name)], [2, 2, ['beta-main']]);
    const failures = await get('failure_analysis/', otherAdmin);
    assert.deepEqual([failures.by_template.map((r: any) => r.template_name), failures.by_host.map((r: any) => r.host_name)], [['backup'], ['b1']]);
    assert.equal((await get('job_trends/?period=year', otherAdmin)).reduce((sum: number, d: any) => sum + d.job_count, 0), 3);
    assert.equal((await get('time_savings/', otherAdmin)).successful_jobs, 2);
  });

  it('refuses a bad parameter with a 400 and a message', async () => {
    const bad: [string, RegExp][] = [
      ['job_trends/?period=decade', /period: "decade" is not one of week, two_weeks, month, quarter, year/],
      ['success_rate/?period=', /period/],
      ['job_trends/?granularity=hour', /granularity: "hour" is not one of day, week, month/],
      ['success_rate/?granularity=year', /granularity/],
      ['top_templates/?limit=0', /limit: give a whole number from 1 to 100/],
      ['top_templates/?limit=101', /limit/],
      ['busiest_hosts/?limit=abc', /limit/],
      ['failure_analysis/?limit=-1', /limit/],
      ['host_coverage/?period=forever', /period/],
      ['time_savings/?manual_multiplier=0', /manual_multiplier: give a number above 0 and at most 1000/],
      ['time_savings/?manual_multiplier=-2', /manual_multiplier/],
      ['time_savings/?manual_multiplier=1001', /manual_multiplier/],
      ['time_savings/?manual_multiplier=ten', /manual_multiplier/],
      ['time_savings/?manual_multiplier=1e3', /manual_multiplier/],
      ['job_trends/?period=week&period=month', /period/],
    ];
    for (const who of [undefined, plain, otherAdmin]) {
      for (const [url, message] of bad) {
        const res = await t.get(`${URL}${url}`, who ? { as: who } : {});
        assert.equal(res.status, 400, `${url}: ${res.text}`);
        assert.match(String(res.body.detail), message, url);
      }
    }
  });

  it('answers only GET and OPTIONS', async () => {
    assert.equal((await t.post(`${URL}job_trends/`, {})).status, 405);
    const options = await t.request('OPTIONS', `${URL}time_savings/`);
    assert.equal(options.status, 200);
    assert.equal(options.body.name, 'Time Savings');
  });
});
