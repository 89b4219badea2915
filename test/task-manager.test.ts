import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, newUser, type TestApp } from './helpers/app.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { eventually, firstProjectUpdate, waitForRun } from './helpers/jobs.ts';

const HELLO = `- hosts: all
  gather_facts: false
  tasks:
    - debug: msg="hello {{ inventory_hostname }}"
`;
const SLOW = `- hosts: all
  gather_facts: false
  tasks:
    - pause: seconds=60
`;
const INVENTORY = `[web]
imported-1
imported-2
[all:vars]
ansible_connection=local
ansible_python_interpreter=/usr/bin/python3
`;

describe('task manager: dependencies, blocking and capacity', () => {
  let t: TestApp;
  let repo: GitRepository;
  let orgId: number;
  let projectId: number;
  let inventoryId: number;
  let nodeId: number;

  before(async () => {
    t = await createTestApp();
    repo = await makeRepository({ 'hello.yml': HELLO, 'slow.yml': SLOW, 'hosts.ini': INVENTORY });
    orgId = (await newOrg(t)).id;
    projectId = (await t.post('/api/v2/projects/', { name: 'Plays', organization: orgId, scm_type: 'git', scm_url: `file://${repo.bare}` })).body.id;
    await firstProjectUpdate(t, projectId);
    inventoryId = (await t.post('/api/v2/inventories/', { name: 'Local', organization: orgId, variables: 'ansible_connection: local\nansible_python_interpreter: /usr/bin/python3' })).body.id;
    assert.equal((await t.post('/api/v2/hosts/', { name: 'h1', inventory: inventoryId })).status, 201);
    nodeId = (await t.get('/api/v2/instances/')).body.results[0].id;
  });
  after(async () => {
    await t.close();
    await repo.remove();
  });

  let templates = 0;
  const template = async (fields: Record<string, unknown> = {}) => {
    const res = await t.post('/api/v2/job_templates/', { name: `jt-${++templates}`, project: projectId, inventory: inventoryId, playbook: 'hello.yml', ...fields });
    assert.equal(res.status, 201, res.text);
    return res.body.id as number;
  };
  const launch = async (templateId: number) => {
    const res = await t.post(`/api/v2/job_templates/${templateId}/launch/`, {});
    assert.equal(res.status, 201, res.text);
    return res.body.id as number;
  };
  const job = async (id: number) => (await t.get(`/api/v2/jobs/${id}/`)).body;
  const statusOf = (id: number, status: string) => eventually(async () => ((await job(id)).status === status ? job(id) : null));
  const cancel = async (id: number) => assert.equal((await t.post(`/api/v2/jobs/${id}/cancel/`, {})).status, 202);
  const projectUpdates = async () => (await t.get(`/api/v2/projects/${projectId}/project_updates/?order_by=id`)).body.results;

  it('runs one job of a template at a time, explaining the wait, unless allow_simultaneous', async () => {
    const serial = await template({ playbook: 'slow.yml' });
    const first = await launch(serial);
    const second = await launch(serial);
    await statusOf(first, 'running');
    const waiting = await eventually(async () => {
      const body = await job(second);
      return body.job_explanation ? body : null;
    });
    assert.equal(waiting.status, 'pending');
    assert.equal(waiting.job_explanation, `waiting for job-${first} to finish`);
    await cancel(first);
    const started = await statusOf(second, 'running');
    assert.equal(started.job_explanation, '', 'the wait is no longer explained once it runs');
    await cancel(second);
    await waitForRun(t, `/api/v2/jobs/${second}/`);

    const parallel = await template({ playbook: 'slow.yml', allow_simultaneous: true });
    const a = await launch(parallel);
    const b = await launch(parallel);
    await statusOf(a, 'running');
    await statusOf(b, 'running');
    await cancel(a);
    await cancel(b);
    await waitForRun(t, `/api/v2/jobs/${a}/`);
    await waitForRun(t, `/api/v2/jobs/${b}/`);
  });

  it('keeps a job pending while its instance lacks capacity, and starts it once capacity frees', async () => {
    // Each one-host job takes 2 (one fork plus the control process); the node offers 3.
    await t.db.query('UPDATE instances SET capacity = 3 WHERE id = $1', [nodeId]);
    try {
      const first = await launch(await template({ playbook: 'slow.yml' }));
      await statusOf(first, 'running');
      const second = await launch(await template({ playbook: 'slow.yml' }));
      const starved = await eventually(async () => {
        const body = await job(second);
        return body.job_explanation ? body : null;
      });
      assert.equal(starved.status, 'pending');
      assert.equal(starved.job_explanation, 'This job is not ready to start because there is not enough available capacity.');
      const instance = (await t.get(`/api/v2/instances/${nodeId}/`)).body;
      assert.equal(instance.consumed_capacity, 2);
      await cancel(first);
      await statusOf(second, 'running');
      await cancel(second);
      await waitForRun(t, `/api/v2/jobs/${second}/`);
    } finally {
      await t.db.query('UPDATE instances SET capacity = least(cpu_capacity, mem_capacity) WHERE id = $1', [nodeId]);
    }
  });

  it('counts a job\'s impact from the hosts its limit selects, capped by its forks', async () => {
    const inventory = (await t.post('/api/v2/inventories/', { name: 'Many', organization: orgId, variables: 'ansible_connection: local\nansible_python_interpreter: /usr/bin/python3' })).body.id;
    for (const name of ['m1', 'm2', 'm3', 'm4']) await t.post('/api/v2/hosts/', { name, inventory });
    const impact = async (fields: Record<string, unknown>) => {
      const id = await launch(await template({ inventory, ...fields }));
      await waitForRun(t, `/api/v2/jobs/${id}/`);
      return (await t.db.query('SELECT task_impact FROM unified_jobs WHERE id = $1', [id]))[0].task_impact;
    };
    assert.equal(await impact({}), 5);
    assert.equal(await impact({ limit: 'm1,m2' }), 3);
    assert.equal(await impact({ forks: 2 }), 3);
  });

  it('does not place jobs on a disabled instance', async () => {
    assert.equal((await t.patch(`/api/v2/instances/${nodeId}/`, { enabled: false })).status, 200);
    const id = await launch(await template());
    const held = await eventually(async () => {
      const body = await job(id);
      return body.job_explanation ? body : null;
    });
    assert.equal(held.status, 'pending');
    assert.match(held.job_explanation, /no enabled instance with capacity .*\(default\)/);
    assert.equal((await t.patch(`/api/v2/instances/${nodeId}/`, { enabled: true })).status, 200);
    assert.equal((await waitForRun(t, `/api/v2/jobs/${id}/`)).status, 'successful');
  });

  it('tries instance groups in order: job template, then inventory, then organization', async () => {
    const empty = (await t.post('/api/v2/instance_groups/', { name: 'empty' })).body.id;
    const ours = (await t.post('/api/v2/instance_groups/', { name: 'ours' })).body.id;
    assert.equal((await t.post(`/api/v2/instance_groups/${ours}/instances/`, { id: nodeId })).status, 204);
    const jt = await template();
    assert.equal((await t.post(`/api/v2/job_templates/${jt}/instance_groups/`, { id: empty })).status, 204);
    const stuck = await launch(jt);
    const held = await eventually(async () => {
      const body = await job(stuck);
      return body.job_explanation ? body : null;
    });
    assert.equal(held.status, 'pending');
    assert.match(held.job_explanation, /\(empty\)/);

    assert.equal((await t.post(`/api/v2/inventories/${inventoryId}/instance_groups/`, { id: ours })).status, 204);
    const listed = (await t.get(`/api/v2/inventories/${inventoryId}/instance_groups/`)).body;
    assert.deepEqual(listed.results.map((g: { name: string }) => g.name), ['ours']);
    const done = await waitForRun(t, `/api/v2/jobs/${stuck}/`);
    assert.equal(done.status, 'successful');
    assert.equal(done.instance_group, ours);
    assert.equal(done.summary_fields.instance_group.name, 'ours');

    // An organization's groups are set by a system administrator only.
    const admin = await newUser(t, { admin: orgId });
    assert.equal((await t.post(`/api/v2/organizations/${orgId}/instance_groups/`, { id: ours }, { as: admin })).status, 403);
    assert.equal((await t.post(`/api/v2/organizations/${orgId}/instance_groups/`, { id: ours })).status, 204);
    assert.equal((await t.get(`/api/v2/organizations/${orgId}/instance_groups/`)).body.count, 1);
    assert.equal((await t.post(`/api/v2/inventories/${inventoryId}/instance_groups/`, { id: ours, disassociate: true })).status, 204);
    assert.equal((await t.post(`/api/v2/job_templates/${jt}/instance_groups/`, { id: empty, disassociate: true })).status, 204);
    const viaOrg = await waitForRun(t, `/api/v2/jobs/${await launch(jt)}/`);
    assert.equal(viaOrg.instance_group, ours);
    assert.equal((await t.post(`/api/v2/organizations/${orgId}/instance_groups/`, { id: ours, disassociate: true })).status, 204);
  });

  it('updates the project first when scm_update_on_launch, within its cache timeout only once', async () => {
    assert.equal((await t.patch(`/api/v2/projects/${projectId}/`, { scm_update_on_launch: true, scm_update_cache_timeout: 0 })).status, 200);
    const before = (await projectUpdates()).length;
    const jt = await template();
    const done = await waitForRun(t, `/api/v2/jobs/${await launch(jt)}/`);
    assert.equal(done.status, 'successful');
    const updates = await projectUpdates();
    assert.equal(updates.length, before + 1);
    const dependency = updates.at(-1);
    assert.equal(dependency.launch_type, 'dependency');
    assert.equal(dependency.status, 'successful');
    assert.ok(new Date(done.started) >= new Date(dependency.finished), 'the job starts after its project update');

    assert.equal((await t.patch(`/api/v2/projects/${projectId}/`, { scm_update_cache_timeout: 3600 })).status, 200);
    assert.equal((await waitForRun(t, `/api/v2/jobs/${await launch(jt)}/`)).status, 'successful');
    assert.equal((await projectUpdates()).length, before + 1, 'a recent update is reused');
    await t.patch(`/api/v2/projects/${projectId}/`, { scm_update_on_launch: false });
  });

  it('fails the job with "Previous Task Failed" when its project update fails', async () => {
    const broken = await makeRepository({ 'hello.yml': HELLO });
    const project = (await t.post('/api/v2/projects/', { name: 'Fragile', organization: orgId, scm_type: 'git', scm_url: `file://${broken.bare}`, scm_update_on_launch: true })).body;
    await firstProjectUpdate(t, project.id);
    await broken.remove();
    const id = await launch(await template({ project: project.id }));
    const done = await waitForRun(t, `/api/v2/jobs/${id}/`);
    assert.equal(done.status, 'failed');
    const update = (await t.get(`/api/v2/projects/${project.id}/project_updates/?order_by=-id`)).body.results[0];
    assert.equal(update.status, 'failed');
    assert.equal(done.job_explanation, `Previous Task Failed: {"job_type":"project_update","job_name":"Fragile","job_id":"${update.id}"}`);
    assert.equal(done.started, null, 'the job never ran');
  });

  it('updates update_on_launch inventory sources first and runs on the hosts they bring', async () => {
    const inventory = (await t.post('/api/v2/inventories/', { name: 'Sourced', organization: orgId })).body.id;
    const source = await t.post('/api/v2/inventory_sources/', {
      name: 'from-git', inventory, source: 'scm', source_project: projectId, source_path: 'hosts.ini', update_on_launch: true, update_cache_timeout: 0,
    });
    assert.equal(source.status, 201, source.text);
    const done = await waitForRun(t, `/api/v2/jobs/${await launch(await template({ inventory }))}/`);
    assert.equal(done.status, 'successful', done.job_explanation);
    const updates = (await t.get(`/api/v2/inventory_sources/${source.body.id}/inventory_updates/`)).body.results;
    assert.equal(updates.length, 1);
    assert.equal(updates[0].launch_type, 'dependency');
    const summaries = (await t.get(`/api/v2/jobs/${done.id}/job_host_summaries/?order_by=host_name`)).body.results;
    assert.deepEqual(summaries.map((s: { host_name: string }) => s.host_name), ['imported-1', 'imported-2']);
  });
});
