// The workflow editor's node dialog: the prompts of the node's template, saved on the node and given to its job.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { consolePage } from '../helpers/browser.ts';
import { launchWorkflow, nodeRun } from '../helpers/workflows.ts';
import { demoTemplateCopy } from '../helpers/factories.ts';

async function lookUp(page: Page, label: string, typed: string, name: string) {
  await page.getByRole('dialog').getByRole('combobox', { name: label, exact: true }).fill(typed);
  await page.getByRole('option', { name, exact: true }).click();
}

const names = (res: { body: { results: { name: string }[] } }) => res.body.results.map((x) => x.name).sort();

describe('web console: workflow node prompts', () => {
  let t: TestApp;
  let org: number;
  let otherInventory: number;
  let workflow: number;
  let node: number;

  before(async () => {
    t = await createTestApp();
    ({ org } = await demoTemplateCopy(t, 'Asks at launch', { ask_inventory_on_launch: true, ask_credential_on_launch: true, ask_labels_on_launch: true, ask_limit_on_launch: true }));
    const inventory = await t.post('/api/v2/inventories/', { name: 'Other inventory', organization: org, variables: 'ansible_connection: local\nansible_python_interpreter: /usr/bin/python3' });
    assert.equal(inventory.status, 201, inventory.text);
    otherInventory = inventory.body.id;
    assert.equal((await t.post('/api/v2/hosts/', { name: 'localhost', inventory: otherInventory })).status, 201);
    const machine = (await t.get('/api/v2/credential_types/?namespace=ssh')).body.results[0].id;
    assert.equal((await t.post('/api/v2/credentials/', { name: 'Second machine', organization: org, credential_type: machine, inputs: { username: 'other' } })).status, 201);
    workflow = (await t.post('/api/v2/workflow_job_templates/', { name: 'Prompted flow', organization: org })).body.id;
  });
  after(() => t.close());

  it('sets the inventory, credential, label and limit the template asks for, saves them on the node, and the node\'s job runs with them', async () => {
    const c = await consolePage(t, undefined, `/workflow_job_templates/${workflow}/visualizer`);
    const { page } = c;
    try {
      await page.getByText('This workflow has no nodes yet.').waitFor();
      await page.getByRole('button', { name: 'Add node' }).click();
      await lookUp(page, 'Job template', 'Asks', 'Asks at launch');
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('heading', { name: 'Credentials, labels and instance groups' }).waitFor();
      await dialog.getByRole('heading', { name: 'Prompts' }).waitFor();
      // Only what the template asks for is offered.
      assert.equal(await dialog.getByRole('combobox', { name: 'Instance groups' }).count(), 0);
      assert.equal(await dialog.getByRole('textbox', { name: 'Job tags' }).count(), 0);
      await lookUp(page, 'Inventory', 'Other', 'Other inventory');
      await lookUp(page, 'Credentials', 'Demo', 'Demo Credential');
      await dialog.getByRole('combobox', { name: 'Labels', exact: true }).fill('node-label');
      await dialog.getByRole('combobox', { name: 'Labels', exact: true }).press('Enter');
      await dialog.getByRole('list', { name: 'Chosen labels' }).getByText('node-label (new)').waitFor();
      await dialog.getByRole('textbox', { name: 'Limit' }).fill('localhost');
      await dialog.getByRole('heading', { name: 'Prompts' }).click();
      await c.shot('workflow-node-prompts');
      await dialog.getByRole('button', { name: 'Add' }).click();
      await dialog.waitFor({ state: 'detached' });

      const nodes = (await t.get(`/api/v2/workflow_job_templates/${workflow}/workflow_nodes/`)).body.results;
      assert.equal(nodes.length, 1);
      node = nodes[0].id;
      assert.equal(nodes[0].inventory, otherInventory);
      assert.equal(nodes[0].limit, 'localhost');
      assert.deepEqual(names(await t.get(`/api/v2/workflow_job_template_nodes/${node}/credentials/`)), ['Demo Credential']);
      assert.deepEqual(names(await t.get(`/api/v2/workflow_job_template_nodes/${node}/labels/`)), ['node-label']);

      // The selected node shows what it launches with.
      const panel = page.getByRole('region', { name: 'Selected node Asks at launch' }).or(page.getByLabel('Selected node Asks at launch'));
      await panel.getByText('Other inventory').waitFor();
      await panel.getByText('localhost').waitFor();
      await panel.getByLabel('Node labels').getByText('node-label').waitFor();
      await panel.getByLabel('Node credentials').getByText('Demo Credential').waitFor();

      // Editing starts from what the node saved.
      await page.getByRole('tabpanel', { name: 'Visualizer' }).getByRole('button', { name: 'Edit', exact: true }).click();
      await dialog.getByRole('list', { name: 'Chosen credentials' }).getByText('Machine: Demo Credential').waitFor();
      await dialog.getByRole('list', { name: 'Chosen labels' }).getByText('node-label').waitFor();
      assert.equal(await dialog.getByRole('textbox', { name: 'Limit' }).inputValue(), 'localhost');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }

    const job = await nodeRun(t, await launchWorkflow(t, workflow), (await t.get(`/api/v2/workflow_job_template_nodes/${node}/`)).body.identifier);
    const run = (await t.get(`/api/v2/jobs/${job}/`)).body;
    assert.equal(run.inventory, otherInventory);
    assert.equal(run.limit, 'localhost');
    assert.deepEqual(names(await t.get(`/api/v2/jobs/${job}/credentials/`)), ['Demo Credential']);
    assert.deepEqual(names(await t.get(`/api/v2/jobs/${job}/labels/`)), ['node-label']);
  });

  it('shows the API\'s refusal of a second machine credential on the field, and keeps the node\'s', async () => {
    const demo = (await t.get('/api/v2/credentials/?name=Demo+Credential')).body.results[0].id;
    assert.equal((await t.post(`/api/v2/workflow_job_template_nodes/${node}/credentials/`, { id: demo, disassociate: true })).status, 204);
    const c = await consolePage(t, undefined, `/workflow_job_templates/${workflow}/visualizer`);
    const { page } = c;
    try {
      await page.getByRole('group', { name: /^Graph of/ }).getByRole('button', { name: /^Asks at launch,/ }).click();
      await page.getByRole('tabpanel', { name: 'Visualizer' }).getByRole('button', { name: 'Edit', exact: true }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('heading', { name: 'Prompts' }).waitFor();
      // Meanwhile someone gives the node a machine credential through the API: the dialog did not know it.
      assert.equal((await t.post(`/api/v2/workflow_job_template_nodes/${node}/credentials/`, { id: demo })).status, 204);
      await lookUp(page, 'Credentials', 'Second', 'Second machine');
      await dialog.getByRole('list', { name: 'Chosen credentials' }).getByText('Machine: Second machine').waitFor();
      await dialog.getByRole('button', { name: 'Save' }).click();
      await dialog.locator('#field-credentials-help').getByText('This launch configuration already provides a Machine credential.').waitFor();
      // The dialog stays open, ready for another try.
      await dialog.locator('button:enabled', { hasText: 'Save' }).waitFor();
      await c.shot('workflow-node-prompts-refusal');
      assert.deepEqual(names(await t.get(`/api/v2/workflow_job_template_nodes/${node}/credentials/`)), ['Demo Credential']);
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });
});
