// The awx.awx collection's workflow modules against a running service: a graph by identifiers, launch, approval, node wait.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, ADMIN, type TestApp } from './helpers/app.ts';
import { runCollectionPlay, type PlaybookRun } from './helpers/awx-collection.ts';

describe('the awx.awx collection and workflows', () => {
  let t: TestApp;
  let host: string;
  let play: PlaybookRun;
  const task = (name: string, module: string, args: object, extra: object = {}) => ({ name, [`awx.awx.${module}`]: args, ...extra });
  const outcome = (name: string) => play.tasks.find((x) => x.task === name)!;

  before(async () => {
    t = await createTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    host = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    play = await runCollectionPlay(host, ADMIN, [
      task('organization', 'organization', { name: 'Flow Org' }),
      task('inner workflow', 'workflow_job_template', { name: 'Collection Inner', organization: 'Flow Org' }),
      task('workflow with nodes', 'workflow_job_template', {
        name: 'Collection Flow',
        organization: 'Flow Org',
        extra_vars: { stage: 'test' },
        workflow_nodes: [
          {
            identifier: 'gate',
            unified_job_template: { name: 'Approve me', type: 'workflow_approval', description: 'a person says yes', timeout: 600 },
            related: { success_nodes: [{ identifier: 'inner' }], failure_nodes: [] },
          },
          { identifier: 'inner', unified_job_template: { name: 'Collection Inner', type: 'workflow_job_template', organization: { name: 'Flow Org' } } },
        ],
      }),
      task('the same again (idempotent)', 'workflow_job_template', {
        name: 'Collection Flow',
        organization: 'Flow Org',
        workflow_nodes: [
          { identifier: 'gate', unified_job_template: { name: 'Approve me', type: 'workflow_approval', timeout: 600 }, related: { success_nodes: [{ identifier: 'inner' }] } },
          { identifier: 'inner', unified_job_template: { name: 'Collection Inner', type: 'workflow_job_template', organization: { name: 'Flow Org' } } },
        ],
      }),
      task('node module', 'workflow_job_template_node', { identifier: 'extra', workflow_job_template: 'Collection Flow', organization: 'Flow Org', unified_job_template: 'Collection Inner', all_parents_must_converge: true }),
      task('launch', 'workflow_launch', { name: 'Collection Flow', organization: 'Flow Org', wait: false }, { register: 'launched' }),
      task('approve', 'workflow_approval', { workflow_job_id: '{{ launched.id }}', name: 'Approve me', action: 'approve', timeout: 30, interval: 0.5 }),
      task('wait for the inner workflow', 'workflow_node_wait', { workflow_job_id: '{{ launched.id }}', name: 'Collection Inner', timeout: 60, interval: 0.5 }),
      task('launch and wait', 'workflow_launch', { name: 'Collection Inner', organization: 'Flow Org', wait: true, timeout: 60, interval: 0.5 }, { register: 'waited' }),
    ]);
  });
  after(() => t.close());

  it('runs every task without failure', () => {
    assert.deepEqual(play.failures, []);
  });

  it('built the graph by identifiers, with the approval node', async () => {
    const wf = (await t.get('/api/v2/workflow_job_templates/?name=Collection Flow')).body.results[0];
    const nodes = (await t.get(`/api/v2/workflow_job_templates/${wf.id}/workflow_nodes/`)).body.results;
    const by = Object.fromEntries(nodes.map((n: any) => [n.identifier, n]));
    assert.deepEqual(Object.keys(by).sort(), ['extra', 'gate', 'inner']);
    assert.deepEqual(by.gate.success_nodes, [by.inner.id]);
    assert.equal(by.gate.summary_fields.unified_job_template.name, 'Approve me');
    assert.equal(by.gate.summary_fields.unified_job_template.unified_job_type, 'workflow_approval');
    const approval = (await t.get(`/api/v2/workflow_approval_templates/${by.gate.unified_job_template}/`)).body;
    assert.equal(approval.timeout, 600);
    assert.equal(outcome('the same again (idempotent)').failed, false);
  });

  it('launched, approved and waited', async () => {
    const launched = outcome('launch').result;
    const done = await t.get(`/api/v2/workflow_jobs/${launched.id}/`);
    assert.equal(outcome('wait for the inner workflow').failed, false);
    assert.equal(outcome('launch and wait').result.status, 'successful');
    const nodes = (await t.get(`/api/v2/workflow_jobs/${launched.id}/workflow_nodes/`)).body.results;
    const gate = nodes.find((n: any) => n.identifier === 'gate');
    assert.equal(gate.summary_fields.job.status, 'successful');
    assert.ok(['running', 'successful'].includes(done.body.status), done.body.status);
  });
});
