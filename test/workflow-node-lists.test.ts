// A workflow template node's labels and instance groups (AWX's saved launch configuration lists): set
// through the API, copied with the workflow, and given to the node's job where its template asks.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { launchWorkflow, nodeRun } from './helpers/workflows.ts';
import { demoTemplateCopy } from './helpers/factories.ts';

const names = (res: { body: { results: { name: string }[] } }) => res.body.results.map((x) => x.name);

describe('workflow node labels and instance groups', () => {
  let t: TestApp;
  let org: number;
  let template: number;
  let workflow: number;
  let node: number;
  const groups: number[] = [];

  before(async () => {
    t = await createTestApp();
    ({ org, template } = await demoTemplateCopy(t, 'Asks labels and groups', { ask_labels_on_launch: true, ask_instance_groups_on_launch: true }));
    for (const name of ['first-group', 'second-group']) groups.push((await t.post('/api/v2/instance_groups/', { name })).body.id);
    workflow = (await t.post('/api/v2/workflow_job_templates/', { name: 'Lists flow', organization: org })).body.id;
    const made = await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: workflow, unified_job_template: template });
    assert.equal(made.status, 201, made.text);
    node = made.body.id;
  });
  after(() => t.close());

  it('lists the node\'s labels (created by name) and instance groups in the order attached', async () => {
    const shown = (await t.get(`/api/v2/workflow_job_template_nodes/${node}/`)).body;
    assert.equal(shown.related.labels, `/api/v2/workflow_job_template_nodes/${node}/labels/`);
    assert.equal(shown.related.instance_groups, `/api/v2/workflow_job_template_nodes/${node}/instance_groups/`);
    const created = await t.post(`/api/v2/workflow_job_template_nodes/${node}/labels/`, { name: 'from-node', organization: org });
    assert.equal(created.status, 201, created.text);
    assert.equal((await t.post(`/api/v2/workflow_job_template_nodes/${node}/labels/`, { name: '', organization: org })).status, 400);
    for (const id of [groups[1], groups[0]]) assert.equal((await t.post(`/api/v2/workflow_job_template_nodes/${node}/instance_groups/`, { id })).status, 204);
    assert.deepEqual(names(await t.get(`/api/v2/workflow_job_template_nodes/${node}/labels/`)), ['from-node']);
    assert.deepEqual(names(await t.get(`/api/v2/workflow_job_template_nodes/${node}/instance_groups/`)), ['second-group', 'first-group']);
  });

  it('refuses a user who may not change the workflow', async () => {
    const user = await t.createUser('node-outsider');
    assert.equal((await t.post(`/api/v2/workflow_job_template_nodes/${node}/instance_groups/`, { id: groups[0], disassociate: true }, { as: user })).status, 403);
    assert.equal((await t.post(`/api/v2/workflow_job_template_nodes/${node}/labels/`, { name: 'sneaky', organization: org }, { as: user })).status, 403);
    assert.deepEqual(names(await t.get(`/api/v2/workflow_job_template_nodes/${node}/instance_groups/`)), ['second-group', 'first-group']);
    assert.equal((await t.get('/api/v2/labels/?name=sneaky')).body.count, 0);
  });

  it('gives the node\'s job its labels and instance groups, and a copy of the workflow keeps them', async () => {
    const identifier = (await t.get(`/api/v2/workflow_job_template_nodes/${node}/`)).body.identifier;
    const workflowJob = await launchWorkflow(t, workflow);
    const job = await nodeRun(t, workflowJob, identifier);
    assert.deepEqual(names(await t.get(`/api/v2/jobs/${job}/labels/`)), ['from-node']);
    const ordered = await t.db.query<{ id: number }>('SELECT instance_group_id AS id FROM unified_job_instance_groups WHERE unified_job_id = $1 ORDER BY position', [job]);
    assert.deepEqual(ordered.map((r) => r.id), [groups[1], groups[0]]);

    // The workflow job's node lists what it was given, read only (AWX's workflow_job_nodes/{id}/ lists).
    const [jobNode] = (await t.get(`/api/v2/workflow_jobs/${workflowJob}/workflow_nodes/`)).body.results;
    for (const list of ['credentials', 'labels', 'instance_groups']) assert.equal(jobNode.related[list], `/api/v2/workflow_job_nodes/${jobNode.id}/${list}/`);
    assert.deepEqual(names(await t.get(`/api/v2/workflow_job_nodes/${jobNode.id}/labels/`)), ['from-node']);
    assert.deepEqual(names(await t.get(`/api/v2/workflow_job_nodes/${jobNode.id}/instance_groups/`)), ['second-group', 'first-group']);
    assert.equal((await t.get(`/api/v2/workflow_job_nodes/${jobNode.id}/credentials/`)).body.count, 0);
    for (const list of ['labels', 'instance_groups']) {
      assert.equal((await t.post(`/api/v2/workflow_job_nodes/${jobNode.id}/${list}/`, { id: groups[0] })).status, 405);
    }
    const outsider = await t.createUser('job-node-outsider');
    assert.equal((await t.get(`/api/v2/workflow_job_nodes/${jobNode.id}/labels/`, { as: outsider })).status, 403);

    const copy = await t.post(`/api/v2/workflow_job_templates/${workflow}/copy/`, { name: 'Lists flow copy' });
    assert.equal(copy.status, 201, copy.text);
    const [copied] = (await t.get(`/api/v2/workflow_job_templates/${copy.body.id}/workflow_nodes/`)).body.results;
    assert.deepEqual(names(await t.get(`/api/v2/workflow_job_template_nodes/${copied.id}/labels/`)), ['from-node']);
    assert.deepEqual(names(await t.get(`/api/v2/workflow_job_template_nodes/${copied.id}/instance_groups/`)), ['second-group', 'first-group']);
  });
});
