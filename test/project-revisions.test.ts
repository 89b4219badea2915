// Every node runs a job on exactly the revision it records (docs/projects.md#several-nodes). A
// node that never synced the project is simulated by emptying this node's directories of it: its
// checkout and its cache of revisions. What ran is read from the playbook's output, not from the
// recorded scm_revision.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createTestApp, newInventory, newOrg, type TestApp } from './helpers/app.ts';
import { git, makeRepository, startGitHttpServer, type GitHttpServer, type GitRepository } from './helpers/git.ts';
import { firstProjectUpdate, waitForRun } from './helpers/jobs.ts';
import { createDemoData } from '../src/server/demo-data.ts';
import { recordManualDirectories } from '../src/projects/manual-dirs.ts';

const PASSWORD = 'revisions-secret';
const play = (message: string) => `- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: msg="content={{ '${message}' }}"\n`;
const HOSTS = 'web1\nweb2\n';

describe('every node runs a job on exactly the recorded revision', () => {
  let t: TestApp;
  let repo: GitRepository;
  let http: GitHttpServer;
  let orgId: number;
  let inventoryId: number;
  let projectId: number;
  let localPath: string;
  let first: string;

  const checkout = (dir: string) => path.join(t.env.projectsRoot, dir);
  const cache = (dir: string) => path.join(t.env.projectsRoot, '.__revisions', dir);
  /** This node forgets the project, as a node that never synced it. */
  const forget = async (dir: string) => {
    await rm(checkout(dir), { recursive: true, force: true });
    await rm(cache(dir), { recursive: true, force: true });
  };
  const sync = async (id: number) => {
    const res = await t.post(`/api/v2/projects/${id}/update/`, {});
    assert.equal(res.status, 202, res.text);
    const update = await waitForRun(t, `/api/v2/project_updates/${res.body.project_update}/`);
    assert.equal(update.status, 'successful', update.job_explanation);
    return update;
  };
  let templates = 0;
  const launch = async (project: number, playbook = 'site.yml', fields: Record<string, unknown> = {}) => {
    const jt = await t.post('/api/v2/job_templates/', { name: `jt-${++templates}`, project, inventory: inventoryId, playbook, allow_simultaneous: true, ...fields });
    assert.equal(jt.status, 201, jt.text);
    const res = await t.post(`/api/v2/job_templates/${jt.body.id}/launch/`, {});
    assert.equal(res.status, 201, res.text);
    return res.body.id as number;
  };
  const finished = (id: number) => waitForRun(t, `/api/v2/jobs/${id}/`, 120_000);
  const stdout = async (id: number) => (await t.get(`/api/v2/jobs/${id}/stdout/?format=txt`)).text;

  before(async () => {
    t = await createTestApp();
    repo = await makeRepository({ 'site.yml': play('first'), 'hosts': HOSTS });
    http = await startGitHttpServer(repo.root, { username: 'git', password: PASSWORD });
    orgId = (await newOrg(t)).id;
    inventoryId = (await newInventory(t, orgId, { hosts: ['here'] })).id;
    const scm = (await t.get('/api/v2/credential_types/?namespace=scm')).body.results[0].id;
    const credential = await t.post('/api/v2/credentials/', { name: 'git', organization: orgId, credential_type: scm, inputs: { username: 'git', password: PASSWORD } });
    assert.equal(credential.status, 201, credential.text);
    const project = await t.post('/api/v2/projects/', { name: 'Site', organization: orgId, scm_type: 'git', scm_url: http.url(repo.name), credential: credential.body.id });
    assert.equal(project.status, 201, project.text);
    projectId = project.body.id;
    assert.equal((await firstProjectUpdate(t, projectId)).status, 'successful');
    const synced = (await t.get(`/api/v2/projects/${projectId}/`)).body;
    localPath = synced.local_path;
    first = synced.scm_revision;
    assert.equal(first, await repo.head());
  });
  after(async () => {
    await t?.close();
    await http?.close();
    await repo?.remove();
  });

  it('a node holding nothing of the project fetches the recorded revision with the project\'s credential and runs it', async () => {
    await forget(localPath);
    const job = await finished(await launch(projectId));
    assert.equal(job.status, 'successful', job.job_explanation);
    assert.match(await stdout(job.id), /content=first/);
    assert.equal(job.scm_revision, first);
    assert.ok(http.requests.some((r) => r.user === 'git' && r.status === 200), 'fetched from the source with the credential');
  });

  it('playbooks/, inventories/ and the template check answer from what the update recorded, whatever the disk holds', async () => {
    await forget(localPath);
    assert.deepEqual((await t.get(`/api/v2/projects/${projectId}/playbooks/`)).body, ['site.yml']);
    assert.deepEqual((await t.get(`/api/v2/projects/${projectId}/inventories/`)).body, ['hosts']);
    const ok = await t.post('/api/v2/job_templates/', { name: 'checked', project: projectId, inventory: inventoryId, playbook: 'site.yml' });
    assert.equal(ok.status, 201, ok.text);
    const refused = await t.post('/api/v2/job_templates/', { name: 'refused', project: projectId, inventory: inventoryId, playbook: 'other.yml' });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body.playbook, ['Playbook not found for project.']);
  });

  it('after a new commit is synced, a node whose cache holds the old revision runs the new one', async () => {
    const warm = await finished(await launch(projectId));
    assert.match(await stdout(warm.id), /content=first/);
    const second = await repo.commit({ 'site.yml': play('second'), 'extra.yml': play('extra') });
    await sync(projectId);
    assert.deepEqual((await t.get(`/api/v2/projects/${projectId}/playbooks/`)).body, ['extra.yml', 'site.yml']);
    // A node that did not run the sync: its cache holds the first revision only.
    await rm(checkout(localPath), { recursive: true, force: true });
    assert.ok((await readdir(cache(localPath))).includes(first));
    const job = await finished(await launch(projectId));
    assert.equal(job.status, 'successful', job.job_explanation);
    assert.match(await stdout(job.id), /content=second/);
    assert.doesNotMatch(await stdout(job.id), /content=first/);
    assert.equal(job.scm_revision, second);
  });

  it('a checkout left at an older commit than the recorded one is never run', async () => {
    const recorded = (await t.get(`/api/v2/projects/${projectId}/`)).body.scm_revision;
    await sync(projectId);
    // The node's own checkout moved back, as when another node synced the new commit.
    await git(checkout(localPath), ['checkout', '--quiet', '--detach', first]);
    await rm(cache(localPath), { recursive: true, force: true });
    const job = await finished(await launch(projectId));
    assert.equal(job.status, 'successful', job.job_explanation);
    assert.match(await stdout(job.id), /content=second/);
    assert.equal(job.scm_revision, recorded);
  });

  it('jobs starting together on a node with an empty cache fetch the revision once between them and all run it', async () => {
    await forget(localPath);
    const ids = await Promise.all([launch(projectId), launch(projectId), launch(projectId)]);
    for (const id of ids) {
      const job = await finished(id);
      assert.equal(job.status, 'successful', job.job_explanation);
      assert.match(await stdout(id), /content=second/);
    }
    assert.deepEqual((await readdir(cache(localPath))).filter((name) => !name.startsWith('.')), [await repo.head()]);
  });

  it('a job with its own scm_branch resolves the name by fetching it', async () => {
    const project = await t.post('/api/v2/projects/', { name: 'Overridable', organization: orgId, scm_type: 'git', scm_url: `file://${repo.bare}`, allow_override: true });
    assert.equal((await firstProjectUpdate(t, project.body.id)).status, 'successful');
    const feature = await repo.branch('feature', { 'site.yml': play('feature') });
    const dir = (await t.get(`/api/v2/projects/${project.body.id}/`)).body.local_path;
    await forget(dir);
    const job = await finished(await launch(project.body.id, 'site.yml', { scm_branch: 'feature' }));
    assert.equal(job.status, 'successful', job.job_explanation);
    assert.match(await stdout(job.id), /content=feature/);
    assert.equal(job.scm_revision, feature);
  });

  it('a revision with a submodule at a relative URL runs with the submodule, fetched from the node\'s checkout or from the source', async () => {
    const lib = await makeRepository({ 'site.yml': play('from-submodule') }, { root: repo.root, name: 'lib' });
    const app = await makeRepository({ 'main.yml': play('app') }, { root: repo.root, name: 'app' });
    try {
      await app.addSubmodule('vendor/lib', lib);
      const project = await t.post('/api/v2/projects/', { name: 'With submodule', organization: orgId, scm_type: 'git', scm_url: `file://${app.bare}` });
      assert.equal((await firstProjectUpdate(t, project.body.id)).status, 'successful');
      const dir = (await t.get(`/api/v2/projects/${project.body.id}/`)).body.local_path;
      const fromCheckout = await finished(await launch(project.body.id, 'vendor/lib/site.yml'));
      assert.equal(fromCheckout.status, 'successful', fromCheckout.job_explanation);
      assert.match(await stdout(fromCheckout.id), /content=from-submodule/);
      await forget(dir);
      const fromSource = await finished(await launch(project.body.id, 'vendor/lib/site.yml'));
      assert.equal(fromSource.status, 'successful', fromSource.job_explanation);
      assert.match(await stdout(fromSource.id), /content=from-submodule/);
    } finally {
      await app.remove();
      await lib.remove();
    }
  });

  it('keeps a few revisions of a project, dropping the oldest', async () => {
    for (let i = 0; i < 4; i++) {
      await repo.commit({ 'site.yml': play(`round-${i}`) });
      await sync(projectId);
      const job = await finished(await launch(projectId));
      assert.match(await stdout(job.id), new RegExp(`content=round-${i}`));
    }
    const kept = (await readdir(cache(localPath))).filter((name) => !name.startsWith('.'));
    assert.equal(kept.length, 3);
    assert.ok(kept.includes(await repo.head()));
  });

  it('a recorded revision that cannot be fetched fails the job, saying which and where', async () => {
    const gone = await makeRepository({ 'site.yml': play('doomed') });
    try {
      const project = await t.post('/api/v2/projects/', { name: 'Rewritten', organization: orgId, scm_type: 'git', scm_url: `file://${gone.bare}` });
      assert.equal((await firstProjectUpdate(t, project.body.id)).status, 'successful');
      const recorded = await gone.head();
      // History rewritten at the source: the recorded commit exists nowhere any more.
      const lone = await gone.git('commit-tree', `${recorded}^{tree}`, '-m', 'rewritten');
      await gone.git('push', '--quiet', '--force', 'origin', `${lone}:refs/heads/main`);
      await git(gone.bare, ['reflog', 'expire', '--expire=now', '--all']);
      await git(gone.bare, ['gc', '--quiet', '--prune=now']);
      await forget((await t.get(`/api/v2/projects/${project.body.id}/`)).body.local_path);
      const job = await finished(await launch(project.body.id));
      assert.equal(job.status, 'failed');
      assert.match(job.job_explanation, new RegExp(`recorded revision ${recorded} of the project "Rewritten" could not be fetched from its source on node test-node`));
      assert.doesNotMatch(await stdout(job.id), /content=/);
    } finally {
      await gone.remove();
    }
  });

  it('a manual project runs only on a node holding its directory, and says so', async () => {
    const dir = path.join(t.env.projectsRoot, 'manual_plays');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'site.yml'), play('manual'));
    const project = await t.post('/api/v2/projects/', { name: 'Manual', organization: orgId, local_path: 'manual_plays' });
    assert.equal(project.status, 201, project.text);
    const here = await finished(await launch(project.body.id));
    assert.match(await stdout(here.id), /content=manual/);
    await rm(dir, { recursive: true, force: true });
    const again = await t.post(`/api/v2/job_templates/${here.job_template}/launch/`, {});
    assert.equal(again.status, 201, again.text);
    const job = await finished(again.body.id);
    assert.equal(job.status, 'failed');
    assert.match(job.job_explanation, /manual project "Manual" has no directory "manual_plays" on node test-node/);
  });

  it('a job of a manual project no node holds the directory of waits, saying so, and runs once a node holds it', async () => {
    const dir = path.join(t.env.projectsRoot, 'placed_plays');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'site.yml'), play('placed'));
    const project = await t.post('/api/v2/projects/', { name: 'Placed', organization: orgId, local_path: 'placed_plays' });
    assert.equal(project.status, 201, project.text);
    const jt = await t.post('/api/v2/job_templates/', { name: 'placed', project: project.body.id, inventory: inventoryId, playbook: 'site.yml' });
    assert.equal(jt.status, 201, jt.text);
    await rm(dir, { recursive: true, force: true });
    // The node's heartbeat records the directories it holds.
    await recordManualDirectories(t.db, t.services, t.env.nodeName);
    const launched = await t.post(`/api/v2/job_templates/${jt.body.id}/launch/`, {});
    assert.equal(launched.status, 201, launched.text);
    await t.settle();
    const waiting = (await t.get(`/api/v2/jobs/${launched.body.id}/`)).body;
    assert.equal(waiting.status, 'pending');
    assert.match(waiting.job_explanation, /no node holds the manual project's directory "placed_plays"/);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'site.yml'), play('placed'));
    await recordManualDirectories(t.db, t.services, t.env.nodeName);
    await t.settle();
    const job = await finished(launched.body.id);
    assert.equal(job.status, 'successful', job.job_explanation);
    assert.equal(job.execution_node, 'test-node');
    assert.match(await stdout(job.id), /content=placed/);
  });
});

describe('the Demo Project on every node', () => {
  it('every node makes the same demo repository, and runs the demo from its own copy', async () => {
    const nodes = [await createTestApp(), await createTestApp()];
    try {
      const revisions: string[] = [];
      for (const t of nodes) {
        assert.equal(await createDemoData(t.services), true);
        const project = (await t.get('/api/v2/projects/?name=Demo+Project')).body.results[0];
        assert.equal((await firstProjectUpdate(t, project.id)).status, 'successful');
        revisions.push((await t.get(`/api/v2/projects/${project.id}/`)).body.scm_revision);
      }
      assert.equal(revisions[0], revisions[1], 'the same commit on both nodes');
      // The second node runs a demo made by the first: the project names the first node's repository.
      const [one, two] = nodes;
      const elsewhere = (await one.db.query<{ demo_repository: string }>('SELECT demo_repository FROM installation'))[0].demo_repository;
      const project = (await two.get('/api/v2/projects/?name=Demo+Project')).body.results[0];
      await two.db.query('UPDATE installation SET demo_repository = $1', [elsewhere]);
      await two.db.query('UPDATE projects SET scm_url = $2, scm_update_on_launch = false WHERE id = $1', [project.id, `file://${elsewhere}`]);
      await rm(path.join(two.env.projectsRoot, project.local_path), { recursive: true, force: true });
      await rm(path.join(one.env.dataDir, 'demo'), { recursive: true, force: true });
      const template = (await two.get('/api/v2/job_templates/?name=Demo+Job+Template')).body.results[0];
      const launched = await two.post(`/api/v2/job_templates/${template.id}/launch/`, {});
      assert.equal(launched.status, 201, launched.text);
      const job = await waitForRun(two, `/api/v2/jobs/${launched.body.id}/`, 120_000);
      assert.equal(job.status, 'successful', job.job_explanation);
      assert.match((await two.get(`/api/v2/jobs/${job.id}/stdout/?format=txt`)).text, /Hello World!/);
    } finally {
      for (const t of nodes) await t.close();
    }
  });
});
