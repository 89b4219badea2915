import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { grant, newOrg, newUser, type User } from './helpers/factories.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { firstProjectUpdate, waitForRun } from './helpers/jobs.ts';

const FAIL_ON_ONE = '- hosts: all\n  gather_facts: false\n  tasks:\n    - fail: msg=broken\n      when: inventory_hostname == "bad"\n';

describe('dashboard', () => {
  let t: TestApp;
  let repo: GitRepository;
  let plain: User;
  let otherAdmin: User;
  let inventory: number;
  let jobId: number;

  before(async () => {
    t = await createTestApp();
    repo = await makeRepository({ 'play.yml': FAIL_ON_ONE });
    const org = (await newOrg(t, { name: 'Dash' })).id;
    const other = (await newOrg(t, { name: 'Elsewhere' })).id;
    plain = await newUser(t);
    otherAdmin = await newUser(t);
    await grant(t, otherAdmin, `/api/v2/organizations/${other}/`, 'admin_role');
    const project = (await t.post('/api/v2/projects/', { name: 'dash', organization: org, scm_type: 'git', scm_url: `file://${repo.bare}` })).body.id;
    await firstProjectUpdate(t, project);
    inventory = (await t.post('/api/v2/inventories/', { name: 'dash-inv', organization: org, variables: 'ansible_connection: local\nansible_python_interpreter: /usr/bin/python3' })).body.id;
    for (const name of ['good', 'bad']) assert.equal((await t.post('/api/v2/hosts/', { name, inventory })).status, 201);
    const jt = await t.post('/api/v2/job_templates/', { name: 'dash-jt', project, inventory, playbook: 'play.yml' });
    assert.equal(jt.status, 201, jt.text);
    jobId = (await t.post(`/api/v2/job_templates/${jt.body.id}/launch/`, {})).body.job;
    const done = await waitForRun(t, `/api/v2/jobs/${jobId}/`);
    assert.equal(done.status, 'failed');
  });
  after(async () => {
    await t.close();
    await repo.remove();
  });

  it('is listed at the API root', async () => {
    assert.equal((await t.get('/api/v2/')).body.dashboard, '/api/v2/dashboard/');
  });

  it('counts what the caller may see, with failed hosts and inventories', async () => {
    const res = await t.get('/api/v2/dashboard/');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.inventories.total >= 1, true);
    assert.equal(res.body.inventories.job_failed, 1);
    assert.equal(res.body.hosts.failed, 1);
    assert.equal(res.body.hosts.total >= 2, true);
    assert.equal(res.body.job_templates.total, 1);
    assert.equal(res.body.projects.total >= 1, true);
    assert.equal(res.body.related.jobs_graph, '/api/v2/dashboard/graphs/jobs/');
    const failures = await t.get(res.body.hosts.failures_url);
    assert.deepEqual(failures.body.results.map((h: { name: string }) => h.name), ['bad']);
  });

  it('shows a plain user and another organization\'s admin none of it', async () => {
    for (const who of [plain, otherAdmin]) {
      const res = await t.get('/api/v2/dashboard/', { as: who });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.inventories.total, 0);
      assert.equal(res.body.hosts.total, 0);
      assert.equal(res.body.hosts.failed, 0);
      assert.equal(res.body.job_templates.total, 0);
      const graph = await t.get('/api/v2/dashboard/graphs/jobs/?period=week', { as: who });
      assert.equal(graph.body.jobs.failed.reduce((sum: number, [, n]: [number, number]) => sum + n, 0), 0);
    }
    await grant(t, plain, `/api/v2/inventories/${inventory}/`, 'read_role');
    const res = await t.get('/api/v2/dashboard/', { as: plain });
    assert.equal(res.body.inventories.total, 1);
    assert.equal(res.body.hosts.failed, 1);
  });

  it('graphs finished runs per day by status, and per hour for a day', async () => {
    const week = await t.get('/api/v2/dashboard/graphs/jobs/?period=week&job_type=playbook_run');
    assert.equal(week.status, 200, week.text);
    assert.deepEqual(Object.keys(week.body.jobs).sort(), ['canceled', 'error', 'failed', 'successful']);
    assert.equal(week.body.jobs.failed.length, 8);
    const failedToday = week.body.jobs.failed.at(-1);
    assert.equal(failedToday[1], 1);
    assert.equal(failedToday[0] % 86_400, 0);
    const day = await t.get('/api/v2/dashboard/graphs/jobs/?period=day');
    assert.equal(day.body.jobs.failed.length, 25);
    assert.equal(day.body.jobs.failed.reduce((sum: number, [, n]: [number, number]) => sum + n, 0), 1);
    const updates = await t.get('/api/v2/dashboard/graphs/jobs/?period=week&job_type=scm_update');
    assert.equal(updates.body.jobs.failed.reduce((sum: number, [, n]: [number, number]) => sum + n, 0), 0);
  });

  it('refuses an unknown period or job type with a message', async () => {
    const period = await t.get('/api/v2/dashboard/graphs/jobs/?period=decade');
    assert.equal(period.status, 400);
    assert.match(period.body.detail, /Unknown period "decade"/);
    const type = await t.get('/api/v2/dashboard/graphs/jobs/?job_type=x');
    assert.equal(type.status, 400);
  });

  it('needs credentials', async () => {
    assert.equal((await t.get('/api/v2/dashboard/', { as: null })).status, 401);
  });
});
