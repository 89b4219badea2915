import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { newInventory, newJobTemplate, newOrg, newProject } from './helpers/factories.ts';
import { eventually, waitForRun } from './helpers/jobs.ts';
import { startOpaServer, type OpaServer } from './helpers/opa-server.ts';

const SLOW_PLAYBOOK = '- hosts: all\n  gather_facts: false\n  tasks:\n    - ansible.builtin.wait_for:\n        timeout: 2\n';

/**
 * A policy's warning stays in the run's explanation through the task manager's "waiting for ..."
 * and the run's own end: the explanation of a waiting run is the warning, then why it waits.
 */
describe('gate warnings kept in the explanation', () => {
  let t: TestApp;
  let opa: OpaServer;
  let template: number;

  before(async () => {
    opa = await startOpaServer();
    t = await createTestApp();
    assert.equal((await t.patch('/api/v2/settings/security/', { OPA_ENABLED: true, OPA_SERVER_URL: opa.url })).status, 200);
    const org = (await newOrg(t, { policy_enforcement: 'enforce' })).id;
    const path = `drover.org_${org}.kept`;
    const made = await t.post('/api/v2/policies/', { name: 'window', organization: org, rego_module: `package ${path}`, package_path: path });
    assert.equal(made.status, 201, made.text);
    opa.answer(path.replace(/\./g, '/'), { result: { warn: ['Outside the change window.'], deny: [] } });
    const inventory = (await newInventory(t, org, { hosts: ['localhost'] })).id;
    const project = (await newProject(t, org, { files: { 'slow.yml': SLOW_PLAYBOOK } })).id;
    template = (await newJobTemplate(t, { project, inventory, playbook: 'slow.yml' })).id;
  });
  after(async () => {
    await t?.close();
    await opa?.close();
  });

  it('a warned job waiting behind another keeps the warning, and keeps it once both have finished', async () => {
    const warning = 'Policy warning: window: Outside the change window.';
    const first = await t.post(`/api/v2/job_templates/${template}/launch/`, {});
    const second = await t.post(`/api/v2/job_templates/${template}/launch/`, {});
    assert.equal(first.status, 201, first.text);
    assert.equal(second.status, 201, second.text);
    const waiting = await eventually(async () => {
      const job = (await t.get(`/api/v2/jobs/${second.body.id}/`)).body;
      return job.job_explanation.includes('waiting for') ? job : null;
    }, 30_000, 'the second job waiting behind the first');
    assert.equal(waiting.job_explanation, `${warning}\nwaiting for job-${first.body.id} to finish`);
    for (const id of [first.body.id, second.body.id]) {
      const job = await waitForRun(t, `/api/v2/jobs/${id}/`);
      assert.equal(job.status, 'successful', job.result_traceback);
      assert.equal(job.job_explanation, warning);
    }
  });
});
