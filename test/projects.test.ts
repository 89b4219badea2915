import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createTestApp, newOrg, type TestApp } from './helpers/app.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { waitForRun } from './helpers/jobs.ts';

const PLAYBOOK = '- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: msg=hi\n';

describe('projects', () => {
  let t: TestApp;
  let orgId: number;
  let repo: GitRepository;

  before(async () => {
    t = await createTestApp();
    orgId = (await newOrg(t)).id;
    repo = await makeRepository({ 'site.yml': PLAYBOOK, 'roles/web/tasks/main.yml': '- debug: msg=x\n', 'inventory/hosts.ini': '[web]\nweb1\n' });
  });
  after(async () => {
    await t.close();
    await repo.remove();
  });

  const createGit = async (fields: Record<string, unknown>) => {
    const res = await t.post('/api/v2/projects/', { organization: orgId, scm_type: 'git', scm_url: `file://${repo.bare}`, ...fields });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const lastUpdate = async (projectId: number) => {
    const updates = await t.get(`/api/v2/projects/${projectId}/project_updates/`);
    assert.ok(updates.body.count >= 1, 'an update was created');
    return waitForRun(t, updates.body.results[0].url);
  };

  describe('manual projects', () => {
    it('needs local_path naming an existing directory under the projects root', async () => {
      for (const [local_path, message] of [['', /Choose a directory/], ['../etc', /Invalid path choice/], ['nope', /no such directory/]] as const) {
        const res = await t.post('/api/v2/projects/', { name: `m-${local_path}`, organization: orgId, local_path });
        assert.equal(res.status, 400, local_path);
        assert.match(res.body.local_path[0], message);
      }
      assert.equal((await t.get('/api/v2/projects/?name__startswith=m-')).body.count, 0);
    });

    it('lists playbooks and inventory files of its directory; update is not offered', async () => {
      const dir = path.join(t.env.projectsRoot, 'handmade');
      await mkdir(path.join(dir, 'inventory'), { recursive: true });
      await writeFile(path.join(dir, 'ping.yml'), PLAYBOOK);
      await writeFile(path.join(dir, 'vars.yml'), 'a: 1\n');
      await writeFile(path.join(dir, 'inventory', 'hosts'), '[db]\ndb1\n');
      const res = await t.post('/api/v2/projects/', { name: 'Manual', organization: orgId, local_path: 'handmade' });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.status, 'ok');
      assert.equal(res.body.scm_type, '');
      assert.deepEqual((await t.get(`/api/v2/projects/${res.body.id}/playbooks/`)).body, ['ping.yml']);
      assert.ok((await t.get(`/api/v2/projects/${res.body.id}/inventories/`)).body.includes('inventory/hosts'));
      assert.deepEqual((await t.get(`/api/v2/projects/${res.body.id}/update/`)).body, { can_update: false });
      assert.equal((await t.post(`/api/v2/projects/${res.body.id}/update/`)).status, 405);
      assert.equal((await t.get(`/api/v2/projects/${res.body.id}/project_updates/`)).body.count, 0);
    });

    it('refuses scm fields on a manual project', async () => {
      await mkdir(path.join(t.env.projectsRoot, 'other'), { recursive: true });
      const res = await t.post('/api/v2/projects/', { name: 'Bad manual', organization: orgId, local_path: 'other', scm_url: 'https://example.com/x.git' });
      assert.equal(res.status, 400);
      assert.ok(res.body.scm_url);
    });
  });

  describe('git projects', () => {
    it('validates scm_url', async () => {
      for (const scm_url of ['', 'ftp://example.com/x.git', 'https://user:secret@example.com/x.git', 'not a url']) {
        const res = await t.post('/api/v2/projects/', { name: 'Bad url', organization: orgId, scm_type: 'git', scm_url });
        assert.equal(res.status, 400, scm_url);
        assert.ok(res.body.scm_url, scm_url);
      }
    });

    it('creating a git project syncs it: revision, checkout, playbooks, output and events', async () => {
      const project = await createGit({ name: 'Site' });
      assert.match(project.local_path, new RegExp(`^_${project.id}__site$`));
      const update = await lastUpdate(project.id);
      assert.equal(update.status, 'successful', update.job_explanation);
      assert.equal(update.type, 'project_update');
      assert.equal(update.project, project.id);
      assert.equal(update.launch_type, 'manual');
      assert.equal(update.scm_revision, await repo.head());
      assert.equal(update.failed, false);
      assert.ok(update.elapsed >= 0 && typeof update.elapsed === 'number');
      assert.equal(update.event_processing_finished, true);
      assert.equal(update.execution_node, 'test-node');
      assert.equal(update.summary_fields.execution_environment.name, 'Default execution environment');

      const after = (await t.get(`/api/v2/projects/${project.id}/`)).body;
      assert.equal(after.status, 'successful');
      assert.equal(after.scm_revision, await repo.head());
      assert.equal(after.last_update_failed, false);
      assert.equal(after.summary_fields.last_update.id, update.id);
      await access(path.join(t.env.projectsRoot, after.local_path, 'site.yml'));
      assert.deepEqual((await t.get(`/api/v2/projects/${project.id}/playbooks/`)).body, ['site.yml']);
      assert.ok((await t.get(`/api/v2/projects/${project.id}/inventories/`)).body.includes('inventory/hosts.ini'));
      const inventory = (await t.post('/api/v2/inventories/', { name: 'From site', organization: orgId })).body.id;
      const source = await t.post('/api/v2/inventory_sources/', { name: 'site hosts', inventory, source: 'scm', source_project: project.id, source_path: 'inventory/hosts.ini' });
      assert.equal(source.status, 201, source.text);
      const sources = (await t.get(`/api/v2/projects/${project.id}/scm_inventory_sources/`)).body;
      assert.deepEqual(sources.results.map((r: any) => r.id), [source.body.id]);

      const stdout = await t.get(`${update.url}stdout/?format=txt`);
      assert.equal(stdout.status, 200);
      assert.match(stdout.text, /\$ git fetch/);
      assert.match(stdout.text, /^Execution environment: Default execution environment/);
      assert.match(stdout.text, new RegExp(`revision ${await repo.head()}`));
      const json = (await t.get(`${update.url}stdout/`)).body;
      assert.equal(json.content, stdout.text);
      assert.ok(json.range.absolute_end > 2);
      const part = (await t.get(`${update.url}stdout/?format=json&start_line=1&end_line=2`)).body;
      assert.equal(part.content.split('\n').filter(Boolean).length, 1);

      const events = (await t.get(`${update.url}events/?order_by=start_line`)).body;
      assert.equal(events.count, json.range.absolute_end);
      assert.equal(events.results[0].type, 'project_update_event');
      assert.equal(events.results[0].event, 'verbose');
      assert.deepEqual(events.results.slice(0, 3).map((e: any) => e.start_line), [0, 1, 2]);
      const later = (await t.get(`${update.url}events/?start_line__gte=2`)).body;
      assert.equal(later.count, events.count - 2);
      const downloaded = await t.get(`${update.url}stdout/?format=txt_download`);
      assert.match(String(downloaded.headers['content-disposition']), /attachment/);
      assert.equal((await t.get(`${update.url}stdout/?format=pdf`)).status, 400);
    });

    it('checks out a branch, a tag, a commit, and fails clearly on an unknown ref', async () => {
      const branchHead = await repo.branch('feature', { 'feature.yml': PLAYBOOK });
      const tagged = await repo.tag('v1.0', { message: 'release' });
      const commit = await repo.commit({ 'later.yml': PLAYBOOK });
      for (const [scm_branch, revision] of [['feature', branchHead], ['v1.0', tagged], [tagged, tagged], ['', commit]]) {
        const project = await createGit({ name: `ref-${scm_branch || 'default'}`, scm_branch });
        const update = await lastUpdate(project.id);
        assert.equal(update.status, 'successful', `${scm_branch}: ${update.job_explanation}`);
        assert.equal(update.scm_revision, revision, scm_branch);
      }
      const missing = await createGit({ name: 'ref-missing', scm_branch: 'no-such-branch' });
      const failed = await lastUpdate(missing.id);
      assert.equal(failed.status, 'failed');
      assert.match(failed.job_explanation, /"no-such-branch" was not found/);
      const project = (await t.get(`/api/v2/projects/${missing.id}/`)).body;
      assert.equal(project.status, 'failed');
      assert.equal(project.last_update_failed, true);
    });

    it('fetches an extra refspec', async () => {
      const pr = await repo.pushRef('refs/pull/7/head', { 'pr.yml': PLAYBOOK });
      const project = await createGit({ name: 'refspec', scm_refspec: 'refs/pull/*:refs/remotes/origin/pull/*', scm_branch: 'pull/7/head' });
      const update = await lastUpdate(project.id);
      assert.equal(update.status, 'successful', update.job_explanation);
      assert.equal(update.scm_revision, pr);
    });

    it('updates submodules, at their recorded commit or tracking their branch', async () => {
      const lib = await makeRepository({ 'lib.yml': '- debug: msg=lib\n' }, { root: repo.root, name: 'lib' });
      const pinned = await lib.head();
      const app = await makeRepository({ 'main.yml': PLAYBOOK }, { root: repo.root, name: 'app' });
      await app.addSubmodule('vendor/lib', lib);
      await lib.commit({ 'newer.yml': '- debug: msg=newer\n' });
      const pinnedProject = await createGit({ name: 'with-submodule', scm_url: `file://${app.bare}` });
      assert.equal((await lastUpdate(pinnedProject.id)).status, 'successful');
      const dir = path.join(t.env.projectsRoot, (await t.get(`/api/v2/projects/${pinnedProject.id}/`)).body.local_path, 'vendor/lib');
      await access(path.join(dir, 'lib.yml'));
      await assert.rejects(access(path.join(dir, 'newer.yml')));
      const tracking = await createGit({ name: 'tracking-submodule', scm_url: `file://${app.bare}`, scm_track_submodules: true });
      assert.equal((await lastUpdate(tracking.id)).status, 'successful');
      const trackedDir = path.join(t.env.projectsRoot, (await t.get(`/api/v2/projects/${tracking.id}/`)).body.local_path, 'vendor/lib');
      await access(path.join(trackedDir, 'newer.yml'));
      assert.notEqual(pinned, await lib.head());
    });

    it('POST update/ answers 202 with the new update; scm_clean discards local changes', async () => {
      const project = await createGit({ name: 'resync', scm_clean: true });
      await lastUpdate(project.id);
      const dir = path.join(t.env.projectsRoot, project.local_path);
      await writeFile(path.join(dir, 'site.yml'), 'local edit\n');
      await writeFile(path.join(dir, 'stray.txt'), 'junk\n');
      assert.deepEqual((await t.get(`/api/v2/projects/${project.id}/update/`)).body, { can_update: true });
      const res = await t.post(`/api/v2/projects/${project.id}/update/`);
      assert.equal(res.status, 202);
      assert.equal(res.body.project_update, res.body.id);
      assert.equal(res.body.type, 'project_update');
      const done = await waitForRun(t, res.body.url);
      assert.equal(done.status, 'successful');
      assert.equal(await readFile(path.join(dir, 'site.yml'), 'utf8'), PLAYBOOK);
      await assert.rejects(access(path.join(dir, 'stray.txt')));
    });
  });

  describe('unified views', () => {
    it('/unified_jobs/ and /unified_job_templates/ list project updates and projects with their type', async () => {
      const jobs = (await t.get('/api/v2/unified_jobs/?type=project_update')).body;
      assert.ok(jobs.count > 0);
      for (const job of jobs.results) {
        assert.equal(job.type, 'project_update');
        assert.equal(job.url, `/api/v2/project_updates/${job.id}/`);
      }
      assert.equal((await t.get('/api/v2/unified_jobs/?type=inventory_update')).body.count, 0);
      const templates = (await t.get('/api/v2/unified_job_templates/?type=project&order_by=name')).body;
      assert.ok(templates.results.some((r: any) => r.name === 'Site' && r.type === 'project' && r.url === `/api/v2/projects/${r.id}/`));
      const failed = (await t.get('/api/v2/unified_jobs/?status=failed')).body;
      assert.ok(failed.results.every((j: any) => j.status === 'failed'));
    });
  });
});
