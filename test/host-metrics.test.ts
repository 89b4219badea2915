// AWX's host metrics (docs/host-metrics.md): each job's hosts counted at its end, AWX's soft delete
// and its revival, the monthly summary, the cleanup, and who may read or delete them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { newInventory, newJobTemplate, newOrg, newProject, newUser, type User } from './helpers/factories.ts';
import { waitForRun } from './helpers/jobs.ts';
import { cleanupHostMetrics, summarizeHostMetricsMonthly } from '../src/resources/host-metrics/host-metric-tasks.ts';

const LIST = '/api/v2/host_metrics/';
const SUMMARY = '/api/v2/host_metric_summary_monthly/';

describe('host metrics', () => {
  let t: TestApp;
  let template: any;
  let plain: User;
  let orgAdmin: User;
  let auditor: User;

  before(async () => {
    t = await createTestApp();
    const org = await newOrg(t);
    const inventory = await newInventory(t, org, { hosts: ['Web1', 'db1'] });
    template = await newJobTemplate(t, { project: await newProject(t, org), inventory });
    plain = await newUser(t, { member: org });
    orgAdmin = await newUser(t, { admin: [org, await newOrg(t)] });
    auditor = await newUser(t, { is_system_auditor: true });
  });
  after(() => t.close());

  const runTemplate = async () => {
    const launched = await t.post(`/api/v2/job_templates/${template.id}/launch/`, {});
    assert.equal(launched.status, 201, launched.text);
    assert.equal((await waitForRun(t, `/api/v2/jobs/${launched.body.id}/`)).status, 'successful');
  };
  const metric = async (hostname: string) => {
    const res = await t.get(`${LIST}?hostname=${hostname}`);
    assert.equal(res.status, 200, res.text);
    return res.body.results[0];
  };
  const storedRows = () => t.db.query('SELECT hostname, automated_counter, deleted, deleted_counter FROM host_metrics ORDER BY hostname');

  it('counts each host a job automated, by its lowercased name, soft-deletes it and revives it at the next run', async () => {
    await runTemplate();
    const web = await metric('web1');
    assert.equal(web.type, 'host_metric');
    assert.equal(web.url, `${LIST}${web.id}/`);
    assert.deepEqual(
      [web.automated_counter, web.deleted, web.deleted_counter, web.last_deleted, web.used_in_inventories],
      [1, false, 0, null, null],
    );
    assert.equal(web.first_automation, web.last_automation);
    assert.equal((await metric('db1')).automated_counter, 1);

    const deleted = await t.delete(`${LIST}${web.id}/`);
    assert.equal(deleted.status, 204, deleted.text);
    const gone = (await t.get(`${LIST}${web.id}/`)).body;
    assert.deepEqual([gone.deleted, gone.deleted_counter], [true, 1]);
    assert.ok(gone.last_deleted);
    // Deleting it again changes nothing, as AWX's soft_delete.
    assert.equal((await t.delete(`${LIST}${web.id}/`)).status, 204);
    assert.equal((await t.get(`${LIST}${web.id}/`)).body.deleted_counter, 1);
    assert.deepEqual((await t.get(`${LIST}?deleted=true`)).body.results.map((m: any) => m.hostname), ['web1']);

    await runTemplate();
    const revived = await metric('web1');
    assert.deepEqual([revived.automated_counter, revived.deleted, revived.deleted_counter], [2, false, 1]);
    assert.equal(revived.first_automation, web.first_automation, 'first_automation is set once');
    assert.ok(revived.last_automation > web.last_automation);
    assert.equal(revived.last_deleted, gone.last_deleted, 'the last deletion is kept');
    assert.equal((await metric('db1')).automated_counter, 2);

    const ordered = await t.get(`${LIST}?order_by=-hostname&hostname__startswith=`);
    assert.deepEqual(ordered.body.results.map((m: any) => m.hostname), ['web1', 'db1']);
    assert.equal((await t.get(`${LIST}?search=web`)).body.count, 1);
    assert.equal((await t.get(`${LIST}?automated_counter__gte=3`)).body.count, 0);
  });

  it('refuses plain users and organization administrators, lets system auditors read but not delete', async () => {
    const [first] = (await t.get(LIST)).body.results;
    const before = await storedRows();
    for (const who of [plain, orgAdmin]) {
      for (const url of [LIST, `${LIST}${first.id}/`, SUMMARY]) assert.equal((await t.get(url, { as: who })).status, 403, url);
      assert.equal((await t.delete(`${LIST}${first.id}/`, { as: who })).status, 403);
    }
    assert.equal((await t.get(LIST, { as: auditor })).status, 200);
    assert.equal((await t.get(`${LIST}${first.id}/`, { as: auditor })).status, 200);
    assert.equal((await t.get(SUMMARY, { as: auditor })).status, 200);
    assert.equal((await t.delete(`${LIST}${first.id}/`, { as: auditor })).status, 403);
    for (const method of ['post', 'patch', 'put'] as const) {
      assert.equal((await (t as any)[method](method === 'post' ? LIST : `${LIST}${first.id}/`, { hostname: 'x' })).status, 405, method);
    }
    assert.deepEqual(await storedRows(), before, 'nothing changed');
  });

  it('summarizes each month: hosts added, deleted, consumed', async () => {
    // Two hosts first automated three months ago, one of them deleted last month.
    await t.db.query(
      `INSERT INTO host_metrics (hostname, first_automation, last_automation, deleted, last_deleted, deleted_counter) VALUES
       ('old-a', date_trunc('month', now()) - interval '3 months' + interval '2 days', now() - interval '40 days', false, NULL, 0),
       ('old-b', date_trunc('month', now()) - interval '3 months' + interval '3 days', now() - interval '40 days', true,
        date_trunc('month', now()) - interval '1 month' + interval '1 day', 1)`,
    );
    await summarizeHostMetricsMonthly(t.db);
    const res = await t.get(`${SUMMARY}?order_by=-date&page_size=4`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.count, 36, 'the months the hard threshold keeps');
    const figures = res.body.results.map((m: any) => [m.hosts_added, m.hosts_deleted, m.license_consumed, m.license_capacity, m.indirectly_managed_hosts]);
    // This month: web1 and db1; last month: old-b deleted; two months ago nothing; three months ago old-a and old-b.
    assert.deepEqual(figures, [[2, 0, 3, 0, 0], [0, 1, 1, 0, 0], [0, 0, 2, 0, 0], [2, 0, 2, 0, 0]]);
    assert.match(res.body.results[0].date, /^\d{4}-\d{2}-01$/);
    assert.equal(res.body.results[0].type, 'host_metric_summary_monthly');
  });

  it('cleans up: soft-deletes hosts not automated past the soft threshold, erases those deleted past the hard one', async () => {
    await t.db.query(
      `INSERT INTO host_metrics (hostname, first_automation, last_automation, deleted, last_deleted, deleted_counter) VALUES
       ('stale', now() - interval '14 months', now() - interval '13 months', false, NULL, 0),
       ('ancient', now() - interval '50 months', now() - interval '48 months', true, now() - interval '37 months', 1)`,
    );
    assert.deepEqual(await cleanupHostMetrics(t.db, { soft: 12, hard: 36 }), { softDeleted: 1, hardDeleted: 1 });
    const stale = await metric('stale');
    assert.deepEqual([stale.deleted, stale.deleted_counter], [true, 1]);
    assert.equal((await t.get(`${LIST}?hostname=ancient`)).body.count, 0);
    assert.equal((await metric('web1')).deleted, false, 'recently automated hosts stay');
    assert.equal((await metric('old-b')).hostname, 'old-b', 'a host deleted last month stays');
  });
});
