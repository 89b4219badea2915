import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createTestApp, grant, newOrg, newUser, type TestApp, type User } from './helpers/app.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { eventually, waitForRun } from './helpers/jobs.ts';

const PLAY = '- hosts: all\n  gather_facts: false\n  tasks: []\n';
const names = (body: any) => body.results.map((r: any) => r.name).sort();

describe('copy/ of projects, inventories and execution environments', () => {
  let t: TestApp;
  let repo: GitRepository;
  let org: any;
  let orgAdmin: User;
  let member: User;
  let otherAdmin: User;

  before(async () => {
    t = await createTestApp();
    repo = await makeRepository({ 'site.yml': PLAY });
    org = await newOrg(t);
    orgAdmin = await newUser(t, { admin: org });
    member = await newUser(t, { member: org });
    otherAdmin = await newUser(t, { admin: await newOrg(t) });
  });
  after(async () => {
    await t.close();
    await repo.remove();
  });

  it('copies an inventory with its hosts, groups, their variables and links', async () => {
    const inv = (await t.post('/api/v2/inventories/', { name: 'Prod', organization: org.id, variables: '{"region": "eu"}' })).body;
    assert.equal(inv.related.copy, `/api/v2/inventories/${inv.id}/copy/`);
    const web = (await t.post(`/api/v2/inventories/${inv.id}/groups/`, { name: 'web', variables: '{"port": 80}' })).body;
    const eu = (await t.post(`/api/v2/inventories/${inv.id}/groups/`, { name: 'eu' })).body;
    assert.equal((await t.post(`/api/v2/groups/${eu.id}/children/`, { id: web.id })).status, 204);
    const host = (await t.post(`/api/v2/groups/${web.id}/hosts/`, { name: 'web1', variables: '{"ansible_host": "10.0.0.1"}', enabled: false })).body;
    await t.post(`/api/v2/inventories/${inv.id}/hosts/`, { name: 'lonely' });

    assert.deepEqual((await t.get(inv.related.copy, { as: orgAdmin })).body, { can_copy: true });
    const res = await t.post(inv.related.copy, { name: 'Prod copy' }, { as: orgAdmin });
    assert.equal(res.status, 201, res.text);
    const copy = res.body;
    assert.notEqual(copy.id, inv.id);
    assert.equal(copy.name, 'Prod copy');
    assert.equal(copy.organization, org.id);
    assert.equal(copy.variables, inv.variables);
    assert.equal(copy.total_hosts, 2);
    assert.equal(copy.total_groups, 2);
    assert.deepEqual(names((await t.get(`/api/v2/inventories/${copy.id}/hosts/`)).body), ['lonely', 'web1']);
    const copiedHost = (await t.get(`/api/v2/inventories/${copy.id}/hosts/?name=web1`)).body.results[0];
    assert.notEqual(copiedHost.id, host.id);
    assert.equal(copiedHost.enabled, false);
    assert.equal(copiedHost.variables, host.variables);
    const copiedWeb = (await t.get(`/api/v2/inventories/${copy.id}/groups/?name=web`)).body.results[0];
    assert.equal(copiedWeb.variables, web.variables);
    assert.deepEqual(names((await t.get(`/api/v2/groups/${copiedWeb.id}/hosts/`)).body), ['web1']);
    assert.deepEqual(names((await t.get(`/api/v2/groups/${copiedWeb.id}/parents/`)).body), ['eu']);
    assert.deepEqual(names((await t.get(`/api/v2/inventories/${copy.id}/root_groups/`)).body), ['eu']);
    // The original is untouched.
    assert.equal((await t.get(`/api/v2/groups/${web.id}/hosts/`)).body.results[0].id, host.id);
  });

  it('refuses a copy under the same or a taken name, or without a name', async () => {
    const inv = (await t.post('/api/v2/inventories/', { name: 'Named', organization: org.id })).body;
    const same = await t.post(inv.related.copy, { name: 'Named' });
    assert.equal(same.status, 400);
    assert.match(same.body.__all__[0], /already named Named/);
    await t.post('/api/v2/inventories/', { name: 'Taken', organization: org.id });
    const taken = await t.post(inv.related.copy, { name: 'Taken' });
    assert.equal(taken.status, 400, taken.text);
    assert.equal((await t.post(inv.related.copy, {})).status, 400);
    assert.equal((await t.post(inv.related.copy, { name: '' })).status, 400);
    assert.equal((await t.get('/api/v2/inventories/?name__startswith=Named')).body.count, 1);
  });

  it('refuses copies to those who may not create the object', async () => {
    const inv = (await t.post('/api/v2/inventories/', { name: 'Guarded', organization: org.id })).body;
    await t.post(`/api/v2/inventories/${inv.id}/hosts/`, { name: 'h1' });
    const reader = await newUser(t);
    await grant(t, reader, inv, 'admin_role');
    assert.deepEqual((await t.get(inv.related.copy, { as: reader })).body, { can_copy: false }, 'an inventory admin is no organization inventory admin');
    assert.equal((await t.post(inv.related.copy, { name: 'g2' }, { as: reader })).status, 403);
    assert.equal((await t.get(inv.related.copy, { as: member })).status, 403, 'the member cannot see it');
    assert.equal((await t.post(inv.related.copy, { name: 'g3' }, { as: member })).status, 403);
    assert.equal((await t.post(inv.related.copy, { name: 'g4' }, { as: otherAdmin })).status, 403);
    assert.equal((await t.get('/api/v2/inventories/?name__startswith=g')).body.count, 0);
  });

  it('copies a source control project, which syncs as a new project does', async () => {
    const res = await t.post('/api/v2/projects/', { name: 'Repo', organization: org.id, scm_type: 'git', scm_url: `file://${repo.bare}`, scm_branch: '' });
    assert.equal(res.status, 201, res.text);
    const project = res.body;
    await waitForRun(t, (await eventually(async () => (await t.get(`/api/v2/projects/${project.id}/project_updates/`)).body.results[0])).url);
    assert.equal(project.related.copy, `/api/v2/projects/${project.id}/copy/`);
    assert.deepEqual((await t.get(project.related.copy, { as: orgAdmin })).body, { can_copy: true });
    const copied = await t.post(project.related.copy, { name: 'Repo copy' }, { as: orgAdmin });
    assert.equal(copied.status, 201, copied.text);
    assert.equal(copied.body.scm_url, project.scm_url);
    assert.equal(copied.body.organization, org.id);
    const original = (await t.get(`/api/v2/projects/${project.id}/`)).body;
    assert.notEqual(copied.body.local_path, original.local_path);
    const update = await eventually(async () => (await t.get(`/api/v2/projects/${copied.body.id}/project_updates/`)).body.results[0]);
    assert.equal((await waitForRun(t, update.url)).status, 'successful');
    assert.equal((await t.post(project.related.copy, { name: 'x' }, { as: member })).status, 403);
    assert.equal((await t.post(project.related.copy, { name: 'x' }, { as: otherAdmin })).status, 403);
  });

  it('refuses to copy a manual project, whose directory cannot be shared', async () => {
    await mkdir(path.join(t.env.projectsRoot, 'manual-copy'), { recursive: true });
    await writeFile(path.join(t.env.projectsRoot, 'manual-copy', 'site.yml'), PLAY);
    const project = (await t.post('/api/v2/projects/', { name: 'Manual', organization: org.id, local_path: 'manual-copy' })).body;
    const copied = await t.post(project.related.copy, { name: 'Manual copy' });
    assert.equal(copied.status, 400);
    assert.match(copied.body.local_path[0], /another project uses this directory/);
    assert.equal((await t.get('/api/v2/projects/?name=Manual+copy')).body.count, 0);
  });

  it('copies an execution environment (never as managed) for those who may create one', async () => {
    const ee = (await t.post('/api/v2/execution_environments/', { name: 'EE', image: 'quay.io/acme/ee:2', organization: org.id, pull: 'always' })).body;
    assert.equal(ee.related.copy, `/api/v2/execution_environments/${ee.id}/copy/`);
    const copied = await t.post(ee.related.copy, { name: 'EE copy' }, { as: orgAdmin });
    assert.equal(copied.status, 201, copied.text);
    assert.equal(copied.body.image, 'quay.io/acme/ee:2');
    assert.equal(copied.body.pull, 'always');
    assert.equal(copied.body.organization, org.id);
    assert.equal(copied.body.managed, false);
    assert.deepEqual((await t.get(ee.related.copy, { as: member })).body, { can_copy: false });
    assert.equal((await t.post(ee.related.copy, { name: 'EE m' }, { as: member })).status, 403);
    assert.equal((await t.post(ee.related.copy, { name: 'EE o' }, { as: otherAdmin })).status, 403);
    const global = (await t.post('/api/v2/execution_environments/', { name: 'Global EE', image: 'quay.io/acme/g:1' })).body;
    assert.deepEqual((await t.get(global.related.copy, { as: orgAdmin })).body, { can_copy: false }, 'global ones are for superusers');
    assert.equal((await t.post(global.related.copy, { name: 'Global copy' })).status, 201);
    assert.equal((await t.get('/api/v2/execution_environments/?name__startswith=EE')).body.count, 2);
  });
});
