// Workflow job templates, their nodes and edges: CRUD, graph rules, conditions, approval templates, copy, RBAC.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, grant, newOrg, newUser, type TestApp, type User } from './helpers/app.ts';

describe('workflow job templates and their graph', () => {
  let t: TestApp;
  let org: any;
  let otherOrg: any;
  let wf: any;
  let project: number;

  const node = async (workflow: number, fields: Record<string, unknown> = {}) => {
    const res = await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: workflow, ...fields });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };

  before(async () => {
    t = await createTestApp();
    org = await newOrg(t, { name: 'WfOrg' });
    otherOrg = await newOrg(t, { name: 'Elsewhere' });
    // A workflow to put in nodes: no project sync needed for a template that only has to exist.
    const sub = await t.post('/api/v2/workflow_job_templates/', { name: 'sub', organization: org.id });
    assert.equal(sub.status, 201, sub.text);
    project = sub.body.id;
    wf = (await t.post('/api/v2/workflow_job_templates/', { name: 'Deploy', organization: org.id, extra_vars: 'a: 1' })).body;
  });
  after(() => t.close());

  it('creates, reads and lists a workflow with AWX fields and links', async () => {
    assert.equal(wf.type, 'workflow_job_template');
    assert.equal(wf.organization, org.id);
    assert.equal(wf.related.workflow_nodes, `/api/v2/workflow_job_templates/${wf.id}/workflow_nodes/`);
    assert.equal(wf.related.launch, `/api/v2/workflow_job_templates/${wf.id}/launch/`);
    assert.ok('approval_role' in wf.summary_fields.object_roles);
    const named = await t.get(`/api/v2/workflow_job_templates/Deploy++WfOrg/`);
    assert.equal(named.status, 200, named.text);
    const unified = await t.get(`/api/v2/unified_job_templates/?type=workflow_job_template`);
    assert.ok(unified.body.results.some((r: any) => r.id === wf.id));
    assert.ok(unified.body.results.every((r: any) => r.type === 'workflow_job_template'));
  });

  it('links nodes by kind, refuses cycles, self links and a second edge kind between the same pair', async () => {
    const w = (await t.post('/api/v2/workflow_job_templates/', { name: 'graph', organization: org.id })).body;
    const a = await node(w.id, { unified_job_template: project, identifier: 'a' });
    const b = await node(w.id, { unified_job_template: project });
    const c = await node(w.id, { unified_job_template: project });
    assert.match(b.identifier, /^[0-9a-f-]{36}$/);
    assert.equal((await t.post(`/api/v2/workflow_job_template_nodes/${a.id}/success_nodes/`, { id: b.id })).status, 204);
    assert.equal((await t.post(`/api/v2/workflow_job_template_nodes/${b.id}/failure_nodes/`, { id: c.id })).status, 204);
    const cycle = await t.post(`/api/v2/workflow_job_template_nodes/${c.id}/always_nodes/`, { id: a.id });
    assert.equal(cycle.status, 400);
    assert.deepEqual(cycle.body, { Error: 'Cycle detected.' });
    assert.deepEqual((await t.post(`/api/v2/workflow_job_template_nodes/${a.id}/success_nodes/`, { id: a.id })).body, { Error: 'Cycle detected.' });
    const twice = await t.post(`/api/v2/workflow_job_template_nodes/${a.id}/failure_nodes/`, { id: b.id });
    assert.deepEqual([twice.status, twice.body], [400, { Error: 'Relationship not allowed.' }]);
    const listed = await t.get(`/api/v2/workflow_job_template_nodes/${a.id}/success_nodes/`);
    assert.deepEqual(listed.body.results.map((n: any) => n.id), [b.id]);
    assert.deepEqual((await t.get(`/api/v2/workflow_job_template_nodes/${a.id}/`)).body.success_nodes, [b.id]);
    assert.equal((await t.post(`/api/v2/workflow_job_template_nodes/${a.id}/success_nodes/`, { id: b.id, disassociate: true })).status, 204);
    assert.deepEqual((await t.get(`/api/v2/workflow_job_template_nodes/${a.id}/`)).body.success_nodes, []);
    const dup = await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: w.id, identifier: 'a' });
    assert.equal(dup.status, 400, dup.text);
    // A node of another workflow cannot be linked.
    const foreign = await node(wf.id, {});
    assert.equal((await t.post(`/api/v2/workflow_job_template_nodes/${a.id}/success_nodes/`, { id: foreign.id })).status, 400);
  });

  it('keeps a condition on an edge, checked on save', async () => {
    const w = (await t.post('/api/v2/workflow_job_templates/', { name: 'conditions', organization: org.id })).body;
    const a = await node(w.id);
    const b = await node(w.id);
    const bad = await t.post(`/api/v2/workflow_job_template_nodes/${a.id}/success_nodes/`, { id: b.id, condition: 'artifacts.x >' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.condition[0], /syntax/i);
    assert.deepEqual((await t.get(`/api/v2/workflow_job_template_nodes/${a.id}/`)).body.success_nodes, []);
    assert.equal((await t.post(`/api/v2/workflow_job_template_nodes/${a.id}/success_nodes/`, { id: b.id, condition: 'artifacts.x > 1' })).status, 204);
    const read = (await t.get(`/api/v2/workflow_job_template_nodes/${a.id}/`)).body;
    assert.deepEqual(read.edge_conditions, { success: { [String(b.id)]: 'artifacts.x > 1' } });
  });

  it('creates a child through an edge list and makes approval nodes', async () => {
    const w = (await t.post('/api/v2/workflow_job_templates/', { name: 'approvals', organization: org.id })).body;
    const a = await node(w.id);
    const child = await t.post(`/api/v2/workflow_job_template_nodes/${a.id}/always_nodes/`, { identifier: 'made-here' });
    assert.equal(child.status, 201, child.text);
    assert.equal(child.body.workflow_job_template, w.id);
    const approval = await t.post(`/api/v2/workflow_job_template_nodes/${child.body.id}/create_approval_template/`, { name: 'OK?', timeout: 30 });
    assert.equal(approval.status, 201, approval.text);
    assert.equal(approval.body.type, 'workflow_approval_template');
    const again = (await t.get(`/api/v2/workflow_job_template_nodes/${child.body.id}/`)).body;
    assert.equal(again.unified_job_template, approval.body.id);
    assert.equal(again.summary_fields.unified_job_template.unified_job_type, 'workflow_approval');
  });

  it('refuses prompts the node template does not ask for', async () => {
    const inner = (await t.post('/api/v2/workflow_job_templates/', { name: 'inner', organization: org.id, ask_limit_on_launch: true })).body;
    const ok = await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: wf.id, unified_job_template: inner.id, limit: 'h1' });
    assert.equal(ok.status, 201, ok.text);
    const refused = await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: wf.id, unified_job_template: inner.id, scm_branch: 'dev', extra_data: { x: 1 } });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body.scm_branch, ['Field is not configured to prompt on launch.']);
    assert.match(refused.body.extra_data[0], /Variables x are not allowed on launch/);
    const self = await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: inner.id, unified_job_template: inner.id });
    assert.equal(self.status, 400);
  });

  it('copies a workflow with its whole graph', async () => {
    const w = (await t.post('/api/v2/workflow_job_templates/', { name: 'to copy', organization: org.id })).body;
    const a = await node(w.id, { unified_job_template: project, identifier: 'first' });
    const b = await node(w.id, { identifier: 'second' });
    await t.post(`/api/v2/workflow_job_template_nodes/${b.id}/create_approval_template/`, { name: 'gate' });
    await t.post(`/api/v2/workflow_job_template_nodes/${a.id}/success_nodes/`, { id: b.id, condition: 'status == "successful"' });
    const copy = await t.post(`/api/v2/workflow_job_templates/${w.id}/copy/`, { name: 'copied' });
    assert.equal(copy.status, 201, copy.text);
    const nodes = (await t.get(`/api/v2/workflow_job_templates/${copy.body.id}/workflow_nodes/?order_by=id`)).body.results;
    assert.deepEqual(nodes.map((n: any) => n.identifier), ['first', 'second']);
    assert.deepEqual(nodes[0].success_nodes, [nodes[1].id]);
    assert.deepEqual(nodes[0].edge_conditions, { success: { [String(nodes[1].id)]: 'status == "successful"' } });
    assert.notEqual(nodes[1].unified_job_template, b.unified_job_template);
    assert.equal(nodes[1].summary_fields.unified_job_template.name, 'gate');
  });

  describe('access', () => {
    let plain: User;
    let otherAdmin: User;
    let wfAdmin: User;
    let target: any;
    let targetNode: any;

    before(async () => {
      plain = await newUser(t, { member: org.id });
      otherAdmin = await newUser(t, { admin: otherOrg.id });
      wfAdmin = await newUser(t, { member: org.id });
      await grant(t, wfAdmin, `/api/v2/organizations/${org.id}/`, 'workflow_admin_role');
      target = (await t.post('/api/v2/workflow_job_templates/', { name: 'guarded', organization: org.id })).body;
      targetNode = await node(target.id);
    });

    it('hides workflows and their nodes from a plain user and another organization admin', async () => {
      for (const who of [plain, otherAdmin]) {
        assert.equal((await t.get(`/api/v2/workflow_job_templates/${target.id}/`, { as: who })).status, 403);
        assert.equal((await t.get('/api/v2/workflow_job_templates/', { as: who })).body.count, 0);
        assert.equal((await t.get('/api/v2/workflow_job_template_nodes/', { as: who })).body.count, 0);
        assert.equal((await t.get(`/api/v2/workflow_job_template_nodes/${targetNode.id}/`, { as: who })).status, 403);
        assert.equal((await t.patch(`/api/v2/workflow_job_templates/${target.id}/`, { name: 'x' }, { as: who })).status, 403);
        assert.equal((await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: target.id }, { as: who })).status, 403);
        assert.equal((await t.post(`/api/v2/workflow_job_template_nodes/${targetNode.id}/success_nodes/`, { id: targetNode.id }, { as: who })).status, 403);
        assert.equal((await t.post(`/api/v2/workflow_job_templates/${target.id}/launch/`, {}, { as: who })).status, 403);
      }
      assert.equal((await t.post('/api/v2/workflow_job_templates/', { name: 'mine', organization: org.id }, { as: otherAdmin })).status, 403);
      assert.equal((await t.post('/api/v2/workflow_job_templates/', { name: 'no org' }, { as: otherAdmin })).status, 403);
      assert.equal((await t.get('/api/v2/unified_job_templates/?type=workflow_job_template', { as: otherAdmin })).body.count, 0);
    });

    it('lets a workflow admin build graphs only from templates he may use', async () => {
      const mine = await t.post('/api/v2/workflow_job_templates/', { name: 'wf admin', organization: org.id }, { as: wfAdmin });
      assert.equal(mine.status, 201, mine.text);
      const foreign = (await t.post('/api/v2/workflow_job_templates/', { name: 'foreign', organization: otherOrg.id })).body.id;
      const refused = await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: mine.body.id, unified_job_template: foreign }, { as: wfAdmin });
      assert.equal(refused.status, 403);
      const allowed = await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: mine.body.id }, { as: wfAdmin });
      assert.equal(allowed.status, 201);
      // Nor may he move a node onto a template he cannot use.
      assert.equal((await t.patch(`/api/v2/workflow_job_template_nodes/${allowed.body.id}/`, { unified_job_template: foreign }, { as: wfAdmin })).status, 403);
      // The other organization's admin cannot reach into it.
      assert.equal((await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: mine.body.id }, { as: otherAdmin })).status, 403);
    });
  });
});
