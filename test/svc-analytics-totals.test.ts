// The day totals the analytics questions read (docs/analytics.md, migration 0044) follow the jobs:
// a job run for real, summaries stored before the job ends, jobs, templates and hosts deleted, and
// runs shown to a catalog requester; and they always equal the totals rebuilt from scratch.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { grant, newHost, newInventory, newJobTemplate, newOrg, newProject, newUser, type User } from './helpers/factories.ts';
import { waitForRun } from './helpers/jobs.ts';

const URL = '/api/v2/svc_analytics/';
const DAY_MS = 86_400_000;
const noonDaysAgo = (days: number) => new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - days * DAY_MS + 12 * 3_600_000).toISOString();

/** Leaves a transaction without its changes, carrying what it read. */
class RolledBack extends Error {
  constructor(readonly answer: unknown) {
    super('rolled back');
  }
}

describe('analytics day totals', () => {
  let t: TestApp;
  let org: any;
  let requester: User;
  let inventory: any;
  let project: any;
  const hosts: Record<string, number> = {};

  before(async () => {
    t = await createTestApp();
    org = await newOrg(t, { name: 'Totals' });
    requester = await newUser(t);
    inventory = await newInventory(t, org, { name: 'totals-inv' });
    project = await newProject(t, org);
    for (const name of ['t1', 't2']) hosts[name] = (await newHost(t, inventory, { name })).id;
  });
  after(() => t.close());

  const get = async (endpoint: string, who?: User) => {
    const res = await t.get(`${URL}${endpoint}`, who ? { as: who } : {});
    assert.equal(res.status, 200, `${endpoint}: ${res.text}`);
    return res.body;
  };
  const jobCount = async (who?: User) => (await get('job_trends/?period=year&granularity=month', who)).reduce((sum: number, b: any) => sum + b.job_count, 0);
  const hostJobs = async (name: string, who?: User) => (await get('busiest_hosts/?period=year&limit=100', who)).find((h: any) => h.host_name === name)?.job_count ?? 0;

  /** A job of `template` as the task manager leaves it: summaries stored while it runs, then its end. */
  async function runJob(template: any, status: string, daysAgo: number, hostNames: string[]): Promise<number> {
    const [{ id }] = await t.db.query<{ id: number }>(
      `INSERT INTO unified_jobs (kind, name, status, created, started, job_template_id, unified_job_template_id, organization_id, inventory_id)
       VALUES ('job', $1, 'running', now(), now(), $2, $2, $3, $4) RETURNING id`,
      [template.name, template.id, org.id, inventory.id],
    );
    for (const name of hostNames) {
      await t.db.query('INSERT INTO job_host_summaries (job_id, host_id, host_name, ok, failures, failed) VALUES ($1, $2, $3, 2, $4, $5)', [id, hosts[name] ?? null, name, status === 'failed' ? 1 : 0, status === 'failed']);
    }
    await t.db.query('UPDATE unified_jobs SET status = $2, finished = $3, elapsed = 30, failed = $4 WHERE id = $1', [id, status, noonDaysAgo(daysAgo), status === 'failed']);
    return id;
  }

  /** The stored totals equal those rebuilt from the jobs and summaries, per day and per host name. */
  async function assertMatchesRebuild(): Promise<void> {
    const perDay = `SELECT day, status, sum(jobs)::int AS jobs, sum(elapsed)::float8 AS elapsed FROM job_day_totals GROUP BY 1, 2 HAVING sum(jobs) <> 0 ORDER BY 1, 2`;
    const perHost = `SELECT day, host_name, sum(jobs)::int AS jobs, sum(ok)::int AS ok, sum(failed_jobs)::int AS failed FROM host_day_totals GROUP BY 1, 2 HAVING sum(jobs) <> 0 ORDER BY 1, 2`;
    const kept = [await t.db.query(perDay), await t.db.query(perHost)];
    const rebuilt = await t.db.transaction(async (tx) => {
      await tx.query('SELECT analytics_rebuild_totals()');
      const answer = [await tx.query(perDay), await tx.query(perHost)];
      throw new RolledBack(answer);
    }).catch((err) => {
      if (err instanceof RolledBack) return err.answer;
      throw err;
    });
    assert.deepEqual(rebuilt, kept);
  }

  it('counts a job run for real once it ends, with its hosts', async () => {
    const template = (await newJobTemplate(t, { name: 'totals-real', project, inventory })).id;
    const before = [await jobCount(), await hostJobs('t1')];
    const launched = await t.post(`/api/v2/job_templates/${template}/launch/`, {});
    assert.equal(launched.status, 201, launched.text);
    assert.equal((await waitForRun(t, `/api/v2/jobs/${launched.body.id}/`)).status, 'successful');
    assert.deepEqual([await jobCount(), await hostJobs('t1')], [before[0] + 1, before[1] + 1]);
    await assertMatchesRebuild();
  });

  it('counts summaries stored before the job ended, and takes a deleted job away', async () => {
    const template = await newJobTemplate(t, { name: 'totals-a', project, inventory });
    const before = [await jobCount(), await hostJobs('t1'), (await get('failure_analysis/?period=year')).by_host.length];
    const failed = await runJob(template, 'failed', 3, ['t1', 't2']);
    await runJob(template, 'successful', 3, ['t1']);
    assert.deepEqual([await jobCount(), await hostJobs('t1')], [before[0] + 2, before[1] + 2]);
    assert.deepEqual((await get('failure_analysis/?period=year')).by_template.map((r: any) => [r.template_name, r.failed_count]), [['totals-a', 1]]);
    assert.equal((await t.delete(`/api/v2/jobs/${failed}/`)).status, 204);
    assert.deepEqual([await jobCount(), await hostJobs('t1')], [before[0] + 1, before[1] + 1]);
    assert.deepEqual((await get('failure_analysis/?period=year')).by_template, [], 'the failed job is gone');
    assert.equal((await get('failure_analysis/?period=year')).by_host.length, before[2]);
    await assertMatchesRebuild();
  });

  it('keeps a deleted template\'s runs in the trends, under no template, and a deleted host\'s under its name', async () => {
    const template = await newJobTemplate(t, { name: 'totals-b', project, inventory });
    const extra = (await newHost(t, inventory, { name: 't3' })).id;
    hosts.t3 = extra;
    const job = await runJob(template, 'successful', 1, ['t3']);
    const coverage = await get('host_coverage/?period=year');
    assert.equal((await get('top_templates/?period=year&limit=100')).some((r: any) => r.template_name === 'totals-b'), true);
    const before = [await jobCount(), await hostJobs('t3')];

    assert.equal((await t.delete(`/api/v2/job_templates/${template.id}/`)).status, 204);
    assert.equal((await get('top_templates/?period=year&limit=100')).some((r: any) => r.template_name === 'totals-b'), false);
    assert.deepEqual([await jobCount(), await hostJobs('t3')], before, 'the superuser still counts them');

    assert.equal((await t.delete(`/api/v2/hosts/${extra}/`)).status, 204);
    const after = await get('host_coverage/?period=year');
    assert.deepEqual([after.total_hosts, after.automated_hosts], [coverage.total_hosts - 1, coverage.automated_hosts - 1]);
    assert.equal(await hostJobs('t3'), 1, 'the host name keeps its runs');

    assert.equal((await t.delete(`/api/v2/jobs/${job}/`)).status, 204);
    assert.deepEqual([await jobCount(), await hostJobs('t3')], [before[0] - 1, 0]);
    await assertMatchesRebuild();
  });

  it('takes away a job deleted after its template, from the trends and from the hosts it reached', async () => {
    const template = await newJobTemplate(t, { name: 'totals-d', project, inventory });
    hosts.t4 = (await newHost(t, inventory, { name: 't4' })).id;
    const before = [await jobCount(), (await get('host_coverage/?period=year')).automated_hosts];
    const job = await runJob(template, 'successful', 2, ['t4']);
    assert.deepEqual([await jobCount(), (await get('host_coverage/?period=year')).automated_hosts], [before[0] + 1, before[1] + 1]);
    assert.equal((await t.delete(`/api/v2/job_templates/${template.id}/`)).status, 204);
    assert.equal((await t.delete(`/api/v2/jobs/${job}/`)).status, 204);
    assert.deepEqual([await jobCount(), (await get('host_coverage/?period=year')).automated_hosts, await hostJobs('t4')], [...before, 0]);
    await assertMatchesRebuild();
  });

  it('counts a run shown to a catalog requester once, whether or not they read its template', async () => {
    const template = await newJobTemplate(t, { name: 'totals-c', project, inventory });
    const job = await runJob(template, 'successful', 0, ['t2']);
    assert.deepEqual([await jobCount(requester), await hostJobs('t2', requester)], [0, 0]);
    // What a catalog request records for its requester (src/resources/service-catalog/request-launch.ts).
    await t.db.query('INSERT INTO run_viewers (user_id, unified_job_id) VALUES ($1, $2)', [requester.id, job]);
    assert.deepEqual([await jobCount(requester), await hostJobs('t2', requester)], [1, 1]);
    assert.deepEqual((await get('top_templates/', requester)).map((r: any) => [r.template_name, r.run_count]), [['totals-c', 1]]);
    await grant(t, requester, `/api/v2/job_templates/${template.id}/`, 'read_role');
    assert.deepEqual([await jobCount(requester), await hostJobs('t2', requester)], [1, 1], 'not counted twice');
  });
});
