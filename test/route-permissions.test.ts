import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { grant, newOrg, newUser, type User } from './helpers/factories.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { firstProjectUpdate, waitForRun } from './helpers/jobs.ts';
import { routeMethods } from '../src/api/resource-routes.ts';
import { objectPermission } from '../src/api/permissions.ts';
import { unknownRouteActions } from '../src/api/route-objects.ts';
import type { RouteModule } from '../src/api/extra-routes.ts';

/**
 * Route permissions are the framework's: a route on one object names, per method, an action of the
 * resource's access policy; the object is loaded and the action checked before the handler runs.
 */
describe('route permissions', () => {
  let t: TestApp;
  let repo: GitRepository;
  let project: number;
  let template: number;
  let job: number;
  /** Reads the template, the project and the job, and nothing more. */
  let reader: User;
  /** May run the template, not change it. */
  let executor: User;
  /** Administers another organization. */
  let otherAdmin: User;
  const survey = { name: 's', description: '', spec: [{ question_name: 'q', variable: 'v', type: 'text', required: false, default: '' }] };

  before(async () => {
    t = await createTestApp();
    repo = await makeRepository({ 'site.yml': '- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: msg=hi\n' });
    const org = (await newOrg(t)).id;
    project = (await t.post('/api/v2/projects/', { name: 'guarded plays', organization: org, scm_type: 'git', scm_url: `file://${repo.bare}` })).body.id;
    await firstProjectUpdate(t, project);
    const inventory = (await t.post('/api/v2/inventories/', { name: 'guarded', organization: org, variables: 'ansible_connection: local' })).body.id;
    await t.post('/api/v2/hosts/', { name: 'localhost', inventory });
    template = (await t.post('/api/v2/job_templates/', { name: 'guarded jt', project, inventory, playbook: 'site.yml' })).body.id;
    job = (await t.post(`/api/v2/job_templates/${template}/launch/`, {})).body.id;
    await waitForRun(t, `/api/v2/jobs/${job}/`);
    reader = await newUser(t);
    await grant(t, reader, `/api/v2/job_templates/${template}/`, 'read_role');
    await grant(t, reader, `/api/v2/projects/${project}/`, 'read_role');
    executor = await newUser(t);
    await grant(t, executor, `/api/v2/job_templates/${template}/`, 'execute_role');
    otherAdmin = await newUser(t, { admin: (await newOrg(t)).id });
  });
  after(async () => {
    await t?.close();
    await repo?.remove();
  });

  const count = async (sql: string) => (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`))[0].n;

  it('every route on one object names actions its resource policy has, and is an object route', () => {
    assert.deepEqual(unknownRouteActions(t.services.resources, t.app.routeTable), []);
    const onObjects = t.app.routeTable.filter((r) => r.url.startsWith('/api/v2/') && r.url.includes('/:id/') && r.permission?.kind !== 'public');
    assert.ok(onObjects.length > 100);
    const others = onObjects.filter((r) => r.permission?.kind !== 'object' && !r.url.startsWith('/api/v2/settings/')).map((r) => `${r.method} ${r.url}`);
    assert.deepEqual(others, []);
    const launch = t.app.routeTable.find((r) => r.url === '/api/v2/job_templates/:id/launch/' && r.method === 'POST');
    assert.deepEqual(launch?.permission, { kind: 'object', resource: 'job_template', actions: { GET: 'execute', POST: 'execute', OPTIONS: 'view' } });
  });

  it('a launch is refused to a reader and to another organization\'s admin, and starts nothing', async () => {
    const jobs = await count('unified_jobs');
    for (const who of [reader, otherAdmin]) {
      for (const method of ['GET', 'POST'] as const) {
        const res = await t.request(method, `/api/v2/job_templates/${template}/launch/`, { as: who, body: method === 'POST' ? {} : undefined });
        assert.equal(res.status, 403, `${method} as ${who.username}: ${res.text}`);
      }
    }
    assert.equal(await count('unified_jobs'), jobs);
  });

  it('the survey is changed only by the template\'s admins', async () => {
    for (const who of [executor, reader, otherAdmin]) {
      assert.equal((await t.post(`/api/v2/job_templates/${template}/survey_spec/`, survey, { as: who })).status, 403, who.username);
      assert.equal((await t.delete(`/api/v2/job_templates/${template}/survey_spec/`, { as: who })).status, 403, who.username);
    }
    assert.deepEqual((await t.get(`/api/v2/job_templates/${template}/survey_spec/`)).body, {});
    assert.equal((await t.get(`/api/v2/job_templates/${template}/survey_spec/`, { as: executor })).status, 200);
    assert.equal((await t.post(`/api/v2/job_templates/${template}/survey_spec/`, survey)).status, 200);
  });

  it('a project update is refused to a reader and to another organization\'s admin, and starts nothing', async () => {
    const updates = await count(`unified_jobs WHERE kind = 'project_update'`);
    for (const who of [reader, otherAdmin]) {
      assert.equal((await t.post(`/api/v2/projects/${project}/update/`, {}, { as: who })).status, 403, who.username);
    }
    assert.equal((await t.get(`/api/v2/projects/${project}/update/`, { as: reader })).body.can_update, false);
    assert.equal((await t.get(`/api/v2/projects/${project}/update/`, { as: otherAdmin })).status, 403);
    assert.equal(await count(`unified_jobs WHERE kind = 'project_update'`), updates);
  });

  it('a job is canceled only by those the policy allows: refused before its state is looked at', async () => {
    for (const who of [reader, otherAdmin]) {
      assert.equal((await t.post(`/api/v2/jobs/${job}/cancel/`, {}, { as: who })).status, 403, who.username);
    }
    // The admin passes the check and is told the finished job cannot be canceled.
    assert.equal((await t.post(`/api/v2/jobs/${job}/cancel/`, {})).status, 405);
    const [row] = await t.db.query('SELECT cancel_flag FROM unified_jobs WHERE id = $1', [job]);
    assert.equal(row.cancel_flag, false);
  });

  it('an unknown object is a 404 before any action, a hidden one a 403', async () => {
    assert.equal((await t.post('/api/v2/job_templates/999999/launch/', {}, { as: reader })).status, 404);
    assert.equal((await t.get(`/api/v2/jobs/${job}/stdout/`, { as: otherAdmin })).status, 403);
    assert.equal((await t.get(`/api/v2/jobs/${job}/stdout/?format=txt`, { as: reader })).status, 200);
  });

  it('the service refuses to start when a route names an action its policy lacks', async () => {
    const broken: RouteModule = (app) => {
      routeMethods(app, '/api/v2/job_templates/:id/frobnicate/', objectPermission('job_template', { POST: 'frobnicate' }), { POST: async () => ({}) });
    };
    const misdeclared = await createTestApp({}, { extraRoutes: [broken] });
    try {
      await assert.rejects(async () => { await misdeclared.app.ready(); }, /job_template has no action frobnicate/);
    } finally {
      await misdeclared.close();
    }
  });
});
