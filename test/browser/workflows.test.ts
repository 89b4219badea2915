// The workflow visualizer, a workflow job's live graph and approvals, driven through the console.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createTestApp, grant, newOrg, type TestApp } from '../helpers/app.ts';
import { consolePage } from '../helpers/browser.ts';
import { makeRepository, type GitRepository } from '../helpers/git.ts';
import { firstProjectUpdate, waitForRun } from '../helpers/jobs.ts';
import { finished, jobNodes, launchWorkflow, nodeRun } from '../helpers/workflows.ts';

const PLAY = `- hosts: all
  gather_facts: false
  tasks:
    - debug: msg="step"
`;


/** Picks the template of a node in the node modal by typing part of its name. */
async function pickTemplate(page: Page, label: string, name: string) {
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('combobox', { name: label }).fill(name);
  await page.getByRole('option', { name }).click();
}

const nodeButton = (page: Page, name: string) => page.getByRole('group', { name: /^Graph of/ }).getByRole('button', { name: new RegExp(`^${name},`) });

describe('workflow visualizer', () => {
  let t: TestApp;
  let repo: GitRepository;
  let org: number;
  let first: number;
  let second: number;

  before(async () => {
    t = await createTestApp();
    org = (await newOrg(t, { name: 'Flows' })).id;
    repo = await makeRepository({ 'step.yml': PLAY });
    const project = await t.post('/api/v2/projects/', { name: 'Steps', organization: org, scm_type: 'git', scm_url: `file://${repo.bare}` });
    assert.equal(project.status, 201, project.text);
    assert.equal((await firstProjectUpdate(t, project.body.id)).status, 'successful');
    const inventory = await t.post('/api/v2/inventories/', { name: 'Here', organization: org, variables: 'ansible_connection: local\nansible_python_interpreter: /usr/bin/python3' });
    assert.equal((await t.post('/api/v2/hosts/', { name: 'localhost', inventory: inventory.body.id })).status, 201);
    const template = async (name: string) => {
      const res = await t.post('/api/v2/job_templates/', { name, project: project.body.id, inventory: inventory.body.id, playbook: 'step.yml' });
      assert.equal(res.status, 201, res.text);
      return res.body.id as number;
    };
    first = await template('First play');
    second = await template('Second play');
  });
  after(async () => {
    await t.close();
    await repo.remove();
  });

  let workflow: number;
  let firstNode: number;

  it('builds a workflow of two job templates, the second on success of the first', async () => {
    workflow = (await t.post('/api/v2/workflow_job_templates/', { name: 'Pipeline', organization: org })).body.id;
    const { page, open, shot, errors, close } = await consolePage(t);
    try {
      await open(`/workflow_job_templates/${workflow}/visualizer`);
      await page.getByText('This workflow has no nodes yet.').waitFor();
      await page.getByRole('button', { name: 'Add node' }).click();
      await pickTemplate(page, 'Job template', 'First play');
      await page.getByRole('dialog').getByRole('button', { name: 'Add' }).click();
      await nodeButton(page, 'First play').waitFor();
      // The new node is selected, so the next one goes after it.
      await page.getByRole('button', { name: 'Add node' }).click();
      assert.equal(await page.getByLabel('After').locator('option:checked').textContent(), `First play (#${(await nodes()).results[0].id})`);
      assert.equal(await page.getByLabel('Run', { exact: true }).inputValue(), 'success');
      await pickTemplate(page, 'Job template', 'Second play');
      await page.getByRole('dialog').getByRole('button', { name: 'Add' }).click();
      await nodeButton(page, 'Second play').waitFor();
      await page.getByRole('group', { name: /^Graph of/ }).getByText('On success').waitFor();

      const listed = (await nodes()).results;
      assert.equal(listed.length, 2);
      const byTemplate = Object.fromEntries(listed.map((n: any) => [n.unified_job_template, n]));
      firstNode = byTemplate[first].id;
      assert.deepEqual(byTemplate[first].success_nodes, [byTemplate[second].id]);
      assert.deepEqual(byTemplate[first].failure_nodes, []);
      assert.deepEqual(byTemplate[second].success_nodes, []);

      // Linking the second back to the first would close a cycle: the API's refusal is shown.
      await nodeButton(page, 'Second play').click();
      await page.getByRole('button', { name: 'Link', exact: true }).click();
      await page.getByText('Choose the node to run after Second play.').waitFor();
      await nodeButton(page, 'First play').click();
      await page.getByRole('dialog').getByRole('button', { name: 'Link', exact: true }).click();
      await page.getByRole('dialog').getByRole('alert').getByText('Cycle detected.').waitFor();
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('button', { name: 'Cancel linking' }).click();
      assert.deepEqual((await nodes()).results.map((n: any) => n.always_nodes).flat(), []);
      await shot('workflow-editor');
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it('shows the running workflow job with each node reaching successful', async () => {
    const job = await launchWorkflow(t, workflow);
    const { page, open, shot, errors, close } = await consolePage(t);
    try {
      await open(`/workflow_jobs/${job}`);
      const graph = page.getByRole('group', { name: `Graph of workflow job ${job}` });
      for (const name of ['First play', 'Second play']) await graph.getByRole('link', { name: new RegExp(`^${name}, .*successful`) }).waitFor({ timeout: 90_000 });
      await shot('workflow-job-graph');
      const link = await graph.getByRole('link', { name: /^First play,/ }).getAttribute('href');
      assert.equal(link, `/jobs/${(await jobNodes(t, job))[(await t.get(`/api/v2/workflow_job_template_nodes/${firstNode}/`)).body.identifier].summary_fields.job.id}`);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
    assert.equal((await finished(t, job)).status, 'successful');
  });

  it('adds an approval node, which is approved from the approvals list', async () => {
    const gated = (await t.post('/api/v2/workflow_job_templates/', { name: 'Gated', organization: org })).body.id;
    const { page, open, shot, errors, close } = await consolePage(t);
    try {
      await open(`/workflow_job_templates/${gated}/visualizer`);
      await page.getByRole('button', { name: 'Add node' }).click();
      await page.getByLabel('Node type').selectOption('workflow_approval');
      await page.getByLabel('Approval name').fill('Sign off');
      await page.getByRole('dialog').getByRole('button', { name: 'Add' }).click();
      await nodeButton(page, 'Sign off').waitFor();
      await page.getByRole('button', { name: 'Add node' }).click();
      await pickTemplate(page, 'Job template', 'First play');
      await page.getByRole('dialog').getByRole('button', { name: 'Add' }).click();
      await nodeButton(page, 'First play').waitFor();
      const listed = (await t.get(`/api/v2/workflow_job_templates/${gated}/workflow_nodes/`)).body.results;
      const gate = listed.find((n: any) => n.summary_fields.unified_job_template?.unified_job_type === 'workflow_approval');
      assert.equal(gate.summary_fields.unified_job_template.name, 'Sign off');
      assert.equal(gate.success_nodes.length, 1);

      const job = await launchWorkflow(t, gated);
      const approval = await nodeRun(t, job, gate.identifier);
      await open('/workflow_approvals');
      const approve = page.getByRole('button', { name: 'Approve Sign off' });
      await approve.waitFor();
      await shot('workflow-approvals');
      await approve.click();
      await approve.waitFor({ state: 'detached' });
      assert.equal((await waitForRun(t, `/api/v2/workflow_approvals/${approval}/`)).status, 'successful');
      const done = await finished(t, job);
      assert.equal(done.status, 'successful', done.job_explanation);
      assert.equal((await jobNodes(t, job))[listed.find((n: any) => n.id !== gate.id).identifier].summary_fields.job.status, 'successful');
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it('shows a user with read only on the workflow its graph without add, link or delete', async () => {
    const reader = await t.createUser('flow-reader');
    await grant(t, reader, `/api/v2/workflow_job_templates/${workflow}/`, 'read_role');
    const { page, open, shot, errors, close } = await consolePage(t, reader);
    try {
      await open(`/workflow_job_templates/${workflow}/visualizer`);
      await nodeButton(page, 'First play').click();
      await page.getByRole('list', { name: 'Links from First play' }).waitFor();
      await page.getByText('You may view this workflow but not change it.').waitFor();
      for (const name of ['Add node', 'Add after', 'Link', 'Edit', 'Delete']) assert.equal(await page.getByRole('button', { name, exact: true }).count(), 0, name);
      assert.equal(await page.getByRole('button', { name: /^Remove link/ }).count(), 0);
      await shot('workflow-editor-read-only');
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it('edits, unlinks and deletes nodes from the keyboard, in a narrow window', async () => {
    const flow = (await t.post('/api/v2/workflow_job_templates/', { name: 'Rework', organization: org })).body.id;
    const a = (await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: flow, unified_job_template: first })).body.id;
    const b = (await t.post(`/api/v2/workflow_job_template_nodes/${a}/failure_nodes/`, { unified_job_template: first })).body.id;
    const { page, open, shot, errors, close } = await consolePage(t);
    try {
      await page.setViewportSize({ width: 420, height: 900 });
      await open(`/workflow_job_templates/${flow}/visualizer`);
      await page.getByRole('group', { name: /^Graph of/ }).getByText('On failure').waitFor();
      // Select the second node by keyboard: focus it, then Enter.
      const nodesShown = page.getByRole('group', { name: /^Graph of/ }).getByRole('button', { name: /^First play,/ });
      await nodesShown.nth(1).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('list', { name: 'Links into First play' }).waitFor();
      const visualizer = page.getByRole('tabpanel', { name: 'Visualizer' });
      await visualizer.getByRole('button', { name: 'Edit', exact: true }).focus();
      await page.keyboard.press('Enter');
      await pickTemplate(page, 'Job template', 'Second play');
      await page.getByLabel('All parents must converge').check();
      await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
      await nodeButton(page, 'Second play').waitFor();
      const edited = (await t.get(`/api/v2/workflow_job_template_nodes/${b}/`)).body;
      assert.equal(edited.unified_job_template, second);
      assert.equal(edited.all_parents_must_converge, true);

      await page.getByRole('button', { name: 'Remove link on failure from First play to Second play' }).click();
      await page.getByRole('group', { name: /^Graph of/ }).getByText('On failure').waitFor({ state: 'detached' });
      assert.deepEqual((await t.get(`/api/v2/workflow_job_template_nodes/${a}/`)).body.failure_nodes, []);
      await shot('workflow-editor-narrow');

      await visualizer.getByRole('button', { name: 'Delete', exact: true }).click();
      // The graph drops the node before the server has answered: wait for the answer itself.
      const deleted = page.waitForResponse((r) => r.request().method() === 'DELETE' && r.url().endsWith(`/workflow_job_template_nodes/${b}/`));
      await page.getByRole('dialog').getByRole('button', { name: 'Delete node' }).click();
      assert.equal((await deleted).status(), 204);
      await nodeButton(page, 'Second play').waitFor({ state: 'detached' });
      assert.equal((await t.get(`/api/v2/workflow_job_template_nodes/${b}/`)).status, 404);
      assert.equal((await t.get(`/api/v2/workflow_job_templates/${flow}/workflow_nodes/`)).body.count, 1);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  async function nodes() {
    const res = await t.get(`/api/v2/workflow_job_templates/${workflow}/workflow_nodes/`);
    assert.equal(res.status, 200, res.text);
    return res.body;
  }
});
