import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestApp, grant, newOrg, newUser, type TestApp, type User } from './helpers/app.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { eventually, waitForRun } from './helpers/jobs.ts';
import { reapOrphanedRuns } from '../src/dispatcher/dispatcher.ts';

/** A git server that accepts connections and never answers: a sync against it runs until stopped. */
async function startSilentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer(() => undefined);
  server.on('connection', (s) => sockets.add(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/stuck.git`,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('project updates', () => {
  let t: TestApp;
  let orgId: number;
  let repo: GitRepository;
  let silent: Awaited<ReturnType<typeof startSilentServer>>;

  before(async () => {
    t = await createTestApp();
    orgId = (await newOrg(t, { name: 'Ops' })).id;
    repo = await makeRepository({ 'site.yml': '- hosts: all\n  tasks: []\n' });
    silent = await startSilentServer();
  });
  after(async () => {
    await t.close();
    await repo.remove();
    await silent.close();
  });

  const firstUpdate = async (projectId: number) =>
    eventually(async () => (await t.get(`/api/v2/projects/${projectId}/project_updates/`)).body.results[0]);

  it('cancel stops a running sync: status canceled, the project shows it, can_cancel turns false', async () => {
    const project = (await t.post('/api/v2/projects/', { name: 'Stuck', organization: orgId, scm_type: 'git', scm_url: silent.url })).body;
    const update = await firstUpdate(project.id);
    await eventually(async () => (await t.get(update.url)).body.status === 'running');
    assert.deepEqual((await t.get(`${update.url}cancel/`)).body, { can_cancel: true });
    assert.equal((await t.post(`${update.url}cancel/`)).status, 202);
    const done = await waitForRun(t, update.url);
    assert.equal(done.status, 'canceled');
    assert.equal(done.failed, true);
    assert.deepEqual((await t.get(`${update.url}cancel/`)).body, { can_cancel: false });
    assert.equal((await t.post(`${update.url}cancel/`)).status, 405);
    const after = (await t.get(`/api/v2/projects/${project.id}/`)).body;
    assert.equal(after.status, 'canceled');
    assert.equal(after.summary_fields.current_job, undefined);
  });

  it('a sync running past its timeout fails with "Job terminated due to timeout"', async () => {
    const project = (await t.post('/api/v2/projects/', { name: 'Slow', organization: orgId, scm_type: 'git', scm_url: silent.url, timeout: 1 })).body;
    const done = await waitForRun(t, (await firstUpdate(project.id)).url);
    assert.equal(done.status, 'failed');
    assert.equal(done.job_explanation, 'Job terminated due to timeout');
    assert.equal(done.timeout, 1);
    assert.match((await t.get(`${done.url}stdout/?format=txt`)).text, /terminated due to timeout/);
  });

  it('a second update of the same project waits for the first; a pending one cancels at once', async () => {
    const project = (await t.post('/api/v2/projects/', { name: 'Queue', organization: orgId, scm_type: 'git', scm_url: silent.url })).body;
    const first = await firstUpdate(project.id);
    await eventually(async () => (await t.get(first.url)).body.status === 'running');
    const second = (await t.post(`/api/v2/projects/${project.id}/update/`)).body;
    // Instead of waiting a while: the task manager names the running first update as what the second
    // waits for once it has looked at the second and kept it back.
    const held = await eventually(async () => {
      const body = (await t.get(second.url)).body;
      return body.job_explanation === `waiting for project_update-${first.id} to finish` && body;
    });
    assert.equal(held.status, 'pending');
    assert.equal((await t.post(`${second.url}cancel/`)).status, 202);
    const canceled = (await t.get(second.url)).body;
    assert.equal(canceled.status, 'canceled');
    assert.match(canceled.job_explanation, /before it started/);
    await t.post(`${first.url}cancel/`);
    assert.equal((await waitForRun(t, first.url)).status, 'canceled');
  });

  it('finished updates can be deleted by project admins; running ones cannot', async () => {
    const project = (await t.post('/api/v2/projects/', { name: 'Deletable', organization: orgId, scm_type: 'git', scm_url: `file://${repo.bare}` })).body;
    const done = await waitForRun(t, (await firstUpdate(project.id)).url);
    assert.equal(done.status, 'successful');
    assert.equal((await t.delete(done.url)).status, 204);
    assert.equal((await t.get(done.url)).status, 404);
    const after = (await t.get(`/api/v2/projects/${project.id}/`)).body;
    assert.equal(after.related.last_update, undefined, 'no link to the deleted update');
    assert.equal(after.summary_fields.last_update, undefined);
    assert.equal((await t.db.query('SELECT count(*)::int AS n FROM unified_job_events WHERE unified_job_id = $1', [done.id]))[0].n, 0);
  });

  it('installs roles from roles/requirements.yml and reports an unreachable Galaxy server clearly', async () => {
    const broken = await makeRepository({
      'site.yml': '- hosts: all\n  tasks: []\n',
      'roles/requirements.yml': '- src: http://127.0.0.1:9/nowhere/role.tar.gz\n  name: nowhere\n',
    });
    const project = (await t.post('/api/v2/projects/', { name: 'Needs roles', organization: orgId, scm_type: 'git', scm_url: `file://${broken.bare}` })).body;
    const done = await waitForRun(t, (await firstUpdate(project.id)).url);
    assert.equal(done.status, 'failed');
    assert.match(done.job_explanation, /Installing roles from roles\/requirements.yml failed: the Galaxy server could not be reached/);
    assert.match((await t.get(`${done.url}stdout/?format=txt`)).text, /ansible-galaxy role install/);
    assert.equal((await t.patch('/api/v2/settings/jobs/', { SVC_ROLES_ENABLED: false })).status, 200);
    const again = await waitForRun(t, (await t.post(`/api/v2/projects/${project.id}/update/`)).body.url);
    assert.equal(again.status, 'successful', again.job_explanation);
    assert.match((await t.get(`${again.url}stdout/?format=txt`)).text, /Skipping roles\/requirements.yml/);
    await t.patch('/api/v2/settings/jobs/', { SVC_ROLES_ENABLED: true });
    await broken.remove();
  });

  it('at start, a node marks the syncs it left running as failed (reaper)', async () => {
    const project = (await t.post('/api/v2/projects/', { name: 'Orphaned', organization: orgId, scm_type: 'git', scm_url: `file://${repo.bare}` })).body;
    await waitForRun(t, (await firstUpdate(project.id)).url);
    const [orphan] = await t.db.query(
      `INSERT INTO unified_jobs (kind, name, unified_job_template_id, project_id, status, started, execution_node)
       VALUES ('project_update', 'Orphaned', $1, $1, 'running', now(), 'test-node') RETURNING id`,
      [project.id],
    );
    const [elsewhere] = await t.db.query(
      `INSERT INTO unified_jobs (kind, name, unified_job_template_id, project_id, status, started, execution_node)
       VALUES ('project_update', 'Orphaned', $1, $1, 'running', now(), 'other-node') RETURNING id`,
      [project.id],
    );
    await t.db.query('UPDATE projects SET status = $2, current_job_id = $3 WHERE id = $1', [project.id, 'running', orphan.id]);
    assert.equal(await reapOrphanedRuns(t.services), 1);
    const reaped = (await t.get(`/api/v2/project_updates/${orphan.id}/`)).body;
    assert.equal(reaped.status, 'failed');
    assert.match(reaped.job_explanation, /running at system start up/);
    assert.equal((await t.get(`/api/v2/project_updates/${elsewhere.id}/`)).body.status, 'running');
    assert.equal((await t.get(`/api/v2/projects/${project.id}/`)).body.status, 'failed');
    await t.db.query(`UPDATE unified_jobs SET status = 'failed' WHERE id = $1`, [elsewhere.id]);
  });

  describe('access', () => {
    let member: User;
    let projectId: number;
    let updateUrl: string;

    before(async () => {
      member = await newUser(t);
      const project = (await t.post('/api/v2/projects/', { name: 'Guarded', organization: orgId, scm_type: 'git', scm_url: `file://${repo.bare}` })).body;
      projectId = project.id;
      updateUrl = (await waitForRun(t, (await firstUpdate(project.id)).url)).url;
    });

    it('outsiders see neither the project nor its updates', async () => {
      assert.equal((await t.get(`/api/v2/projects/${projectId}/`, { as: member })).status, 403);
      assert.equal((await t.get(updateUrl, { as: member })).status, 403);
      assert.equal((await t.get(`${updateUrl}stdout/`, { as: member })).status, 403);
      assert.equal((await t.get('/api/v2/unified_jobs/', { as: member })).body.count, 0);
      assert.equal((await t.get('/api/v2/project_updates/', { as: member })).body.count, 0);
      assert.equal((await t.get('/api/v2/unified_job_templates/', { as: member })).body.count, 0);
    });

    it('read_role shows the project and its output but does not allow an update', async () => {
      await grant(t, member, `/api/v2/projects/${projectId}/`, 'read_role');
      assert.equal((await t.get(`/api/v2/projects/${projectId}/`, { as: member })).status, 200);
      assert.equal((await t.get(`${updateUrl}stdout/`, { as: member })).status, 200);
      assert.ok((await t.get('/api/v2/unified_jobs/', { as: member })).body.count >= 1);
      assert.deepEqual((await t.get(`/api/v2/projects/${projectId}/update/`, { as: member })).body, { can_update: false });
      assert.equal((await t.post(`/api/v2/projects/${projectId}/update/`, {}, { as: member })).status, 403);
      assert.equal((await t.patch(`/api/v2/projects/${projectId}/`, { description: 'x' }, { as: member })).status, 403);
      assert.equal((await t.delete(updateUrl, { as: member })).status, 403);
    });

    it('update_role allows an update but not a change', async () => {
      await grant(t, member, `/api/v2/projects/${projectId}/`, 'update_role');
      const res = await t.post(`/api/v2/projects/${projectId}/update/`, {}, { as: member });
      assert.equal(res.status, 202);
      assert.equal((await waitForRun(t, res.body.url)).status, 'successful');
      assert.equal((await t.patch(`/api/v2/projects/${projectId}/`, { description: 'x' }, { as: member })).status, 403);
    });

    it('organization project admins create and change projects; members cannot', async () => {
      const body = { name: 'By member', organization: orgId, scm_type: 'git', scm_url: `file://${repo.bare}` };
      assert.equal((await t.post('/api/v2/projects/', body, { as: member })).status, 403);
      await grant(t, member, `/api/v2/organizations/${orgId}/`, 'project_admin_role');
      const created = await t.post('/api/v2/projects/', body, { as: member });
      assert.equal(created.status, 201, created.text);
      assert.equal((await t.patch(`/api/v2/projects/${projectId}/`, { description: 'changed' }, { as: member })).status, 200);
    });
  });
});
