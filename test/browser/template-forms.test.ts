// The job template form's credentials, labels, instance groups, prompt switches and sections, as an AWX user makes a template.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { consolePage } from '../helpers/browser.ts';
import { eventually, waitForRun } from '../helpers/jobs.ts';
import { createDemoData } from '../../src/server/demo-data.ts';

/** Picks `name` in the lookup labelled `label` by typing part of it. */
async function lookUp(page: Page, label: string, typed: string, name: string) {
  await page.getByRole('combobox', { name: label, exact: true }).fill(typed);
  await page.getByRole('option', { name, exact: true }).click();
}

describe('web console: template and project forms', () => {
  let t: TestApp;
  let org: number;
  let vaultType: number;
  let machineType: number;
  before(async () => {
    t = await createTestApp();
    await createDemoData(t.services);
    org = (await t.get('/api/v2/organizations/?name=Default')).body.results[0].id;
    machineType = (await t.get('/api/v2/credential_types/?namespace=ssh')).body.results[0].id;
    vaultType = (await t.get('/api/v2/credential_types/?namespace=vault')).body.results[0].id;
    const made = await Promise.all([
      t.post('/api/v2/credentials/', { name: 'Prod vault', organization: org, credential_type: vaultType, inputs: { vault_password: 'secret', vault_id: 'prod' } }),
      t.post('/api/v2/credentials/', { name: 'Second machine', organization: org, credential_type: machineType, inputs: { username: 'other' } }),
      t.post('/api/v2/labels/', { name: 'existing-label', organization: org }),
      t.post('/api/v2/instance_groups/', { name: 'edge' }),
    ]);
    for (const res of made) assert.equal(res.status, 201, res.text);
  });
  after(() => t.close());

  it('makes a template with a machine and a vault credential, two labels and instance groups in order, shows them, and its job carries them', async () => {
    const c = await consolePage(t, undefined, '/job_templates/add');
    const { page } = c;
    await page.getByRole('heading', { name: 'Details' }).waitFor();
    for (const section of ['Options']) await page.getByRole('heading', { name: section }).waitFor();
    await page.locator('#field-name').fill('Deploy with everything');
    await lookUp(page, 'Inventory', 'Demo', 'Demo Inventory');
    await lookUp(page, 'Project', 'Demo', 'Demo Project');
    await page.getByRole('combobox', { name: 'Playbook' }).locator('option', { hasText: 'hello_world.yml' }).waitFor({ state: 'attached' });
    await page.getByRole('combobox', { name: 'Playbook' }).selectOption('hello_world.yml');

    // Credentials by type: Machine is offered first, then the vault.
    await lookUp(page, 'Credentials', 'Demo', 'Demo Credential');
    await page.getByRole('combobox', { name: 'Credential type' }).selectOption({ label: 'Vault' });
    await lookUp(page, 'Credentials', 'Prod', 'Prod vault');
    const chosenCredentials = page.getByRole('list', { name: 'Chosen credentials' });
    await chosenCredentials.getByText('Machine: Demo Credential').waitFor();
    await chosenCredentials.getByText('Vault (prod): Prod vault').waitFor();
    // A second machine credential takes the first one's place, as in AWX: one per type.
    await page.getByRole('combobox', { name: 'Credential type' }).selectOption({ label: 'Machine' });
    await lookUp(page, 'Credentials', 'Second', 'Second machine');
    await chosenCredentials.getByText('Machine: Second machine').waitFor();
    assert.equal(await chosenCredentials.getByText('Machine: Demo Credential').count(), 0);
    await page.getByRole('button', { name: 'Remove Second machine' }).click();
    await lookUp(page, 'Credentials', 'Demo', 'Demo Credential');

    // One existing label picked, one typed to be created.
    await lookUp(page, 'Labels', 'exist', 'existing-label');
    await page.getByRole('combobox', { name: 'Labels', exact: true }).fill('typed-label');
    await page.getByRole('combobox', { name: 'Labels', exact: true }).press('Enter');
    await page.getByRole('list', { name: 'Chosen labels' }).getByText('typed-label (new)').waitFor();

    // Instance groups: edge, then default, then default moved first.
    await lookUp(page, 'Instance groups', 'edge', 'edge');
    await lookUp(page, 'Instance groups', 'def', 'default');
    await page.getByRole('button', { name: 'Move default up' }).click();
    const order = page.getByRole('list', { name: 'Chosen instance groups, in order' });
    assert.deepEqual((await order.getByRole('listitem').allInnerTexts()).map((s) => s.trim().split('\n')[0]), ['1. default', '2. edge']);

    // A "Prompt on launch" switch beside each promptable field.
    for (const field of ['inventory', 'credentials', 'labels', 'limit', 'variables', 'instance groups', 'job tags']) {
      await page.getByRole('switch', { name: `Prompt for ${field} on launch` }).waitFor();
    }
    assert.equal(await page.getByRole('checkbox', { name: /Prompt for .* on launch/ }).count(), 0);
    await page.getByRole('switch', { name: 'Prompt for limit on launch' }).check();

    // The callback and webhook sections appear with their options.
    await page.getByRole('switch', { name: 'Provisioning callbacks' }).check({ force: true });
    await page.getByRole('heading', { name: 'Provisioning callback' }).waitFor();
    await page.getByRole('button', { name: 'Generate' }).click();
    const key = await page.locator('#field-host_config_key').inputValue();
    assert.match(key, /^[0-9a-f]{32}$/);
    await c.shot('job-template-form');

    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/job_templates\/\d+$/);
    const id = Number(page.url().split('/').pop());
    const jt = (await t.get(`/api/v2/job_templates/${id}/`)).body;
    assert.equal(jt.host_config_key, key);
    assert.equal(jt.ask_limit_on_launch, true);
    assert.equal(jt.ask_inventory_on_launch, false);
    assert.deepEqual(jt.summary_fields.credentials.map((x: any) => x.name).sort(), ['Demo Credential', 'Prod vault']);
    assert.deepEqual(jt.summary_fields.labels.results.map((x: any) => x.name), ['existing-label', 'typed-label']);
    const typed = (await t.get('/api/v2/labels/?name=typed-label')).body.results;
    assert.equal(typed.length, 1);
    assert.equal(typed[0].organization, org);
    assert.deepEqual((await t.get(`/api/v2/job_templates/${id}/instance_groups/`)).body.results.map((g: any) => g.name), ['default', 'edge']);

    // The detail page shows them, linked.
    const details = page.getByLabel('Credentials, labels and instance groups');
    await details.getByRole('link', { name: 'Machine: Demo Credential' }).waitFor();
    await details.getByRole('link', { name: 'Vault: Prod vault' }).waitFor();
    await details.getByRole('link', { name: 'typed-label' }).waitFor();
    const existing = (await t.get('/api/v2/labels/?name=existing-label')).body.results[0].id;
    assert.equal(await details.getByRole('link', { name: 'existing-label' }).getAttribute('href'), `/labels/${existing}`);
    assert.deepEqual(await details.locator('[data-field="instance_groups"] a').allInnerTexts(), ['default', 'edge']);
    await c.shot('job-template-detail-relations');

    // Launched (the limit is asked, as its switch says), the job carries the credentials and labels.
    await page.getByRole('button', { name: 'Launch Deploy with everything' }).click();
    const wizard = page.getByRole('dialog', { name: 'Launch Deploy with everything' });
    await wizard.getByLabel('Limit').fill('localhost');
    await wizard.getByRole('button', { name: 'Next', exact: true }).click();
    await wizard.getByRole('button', { name: 'Launch', exact: true }).click();
    await page.waitForURL(/\/jobs\/\d+$/);
    const job = Number(page.url().split('/').pop());
    const done = await waitForRun(t, `/api/v2/jobs/${job}/`);
    assert.equal(done.limit, 'localhost');
    assert.deepEqual((await t.get(`/api/v2/jobs/${job}/credentials/`)).body.results.map((x: any) => x.name).sort(), ['Demo Credential', 'Prod vault']);
    assert.deepEqual((await t.get(`/api/v2/jobs/${job}/labels/`)).body.results.map((x: any) => x.name).sort(), ['existing-label', 'typed-label']);
    assert.deepEqual(c.errors, []);
    await c.close();
  });

  it('shows the API\'s refusal of a second machine credential on the field, and saves nothing of it', async () => {
    const jt = (await t.get('/api/v2/job_templates/?name=Demo+Job+Template')).body.results[0];
    const demo = (await t.get('/api/v2/credentials/?name=Demo+Credential')).body.results[0].id;
    for (const cred of jt.summary_fields.credentials) await t.post(`/api/v2/job_templates/${jt.id}/credentials/`, { id: cred.id, disassociate: true });
    const c = await consolePage(t, undefined, `/job_templates/${jt.id}/edit`);
    await c.page.getByRole('heading', { name: 'Details' }).waitFor();
    // Meanwhile someone attaches a machine credential through the API: the form did not know it.
    assert.equal((await t.post(`/api/v2/job_templates/${jt.id}/credentials/`, { id: demo })).status, 204);
    await lookUp(c.page, 'Credentials', 'Second', 'Second machine');
    await c.page.getByRole('button', { name: 'Save' }).click();
    await c.page.locator('#field-credentials-help').getByText('Cannot assign multiple Machine credentials.').waitFor();
    assert.match(c.page.url(), /\/edit$/);
    assert.deepEqual((await t.get(`/api/v2/job_templates/${jt.id}/credentials/`)).body.results.map((x: any) => x.id), [demo]);
    await c.shot('job-template-form-refusal');
    await c.close();
  });

  it('turns the webhook on with its service, shows its URL and key, makes a new key, and turns it off', async () => {
    const jt = (await t.get('/api/v2/job_templates/?name=Demo+Job+Template')).body.results[0];
    const c = await consolePage(t, undefined, `/job_templates/${jt.id}/edit`);
    const { page } = c;
    assert.equal(await page.getByRole('heading', { name: 'Webhook' }).count(), 0);
    await page.getByRole('switch', { name: 'Enable webhook' }).check({ force: true });
    await page.getByRole('combobox', { name: 'Webhook service' }).selectOption({ label: 'GitHub' });
    await page.getByText('A key is generated when the template is saved with a service.').waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(new RegExp(`/job_templates/${jt.id}$`));
    assert.equal((await t.get(`/api/v2/job_templates/${jt.id}/`)).body.webhook_service, 'github');
    const key = (await t.get(`/api/v2/job_templates/${jt.id}/webhook_key/`)).body.webhook_key;
    assert.match(key, /^\w{50}$/);

    await c.open(`/job_templates/${jt.id}/edit`);
    await page.getByRole('heading', { name: 'Webhook' }).waitFor();
    assert.equal(await page.locator('#webhook-url input').inputValue(), `${c.base}/api/v2/job_templates/${jt.id}/github/`);
    await page.getByRole('button', { name: 'Show key' }).click();
    assert.equal(await page.locator('#webhook-key input').inputValue(), key);
    await c.shot('job-template-form-webhook');
    await page.getByRole('button', { name: 'Generate' }).click();
    await eventually(async () => ((await page.locator('#webhook-key input').inputValue()) !== key ? true : null), 10_000, 'a new key shown');
    const rotated = (await t.get(`/api/v2/job_templates/${jt.id}/webhook_key/`)).body.webhook_key;
    assert.equal(await page.locator('#webhook-key input').inputValue(), rotated);

    await page.getByRole('switch', { name: 'Enable webhook' }).uncheck({ force: true });
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(new RegExp(`/job_templates/${jt.id}$`));
    assert.equal((await t.get(`/api/v2/job_templates/${jt.id}/`)).body.webhook_service, '');
    await c.close();
  });

  it('makes a workflow template with a label typed in, in its organization, and prompts by switch', async () => {
    const c = await consolePage(t, undefined, '/workflow_job_templates/add');
    const { page } = c;
    await page.locator('#field-name').fill('Labelled workflow');
    await lookUp(page, 'Organization', 'Def', 'Default');
    await page.getByRole('combobox', { name: 'Labels', exact: true }).fill('wf-label');
    await page.getByRole('combobox', { name: 'Labels', exact: true }).press('Enter');
    await page.getByRole('switch', { name: 'Prompt for labels on launch' }).check();
    // Workflow templates have no credentials or instance groups of their own in AWX.
    assert.equal(await page.getByRole('combobox', { name: 'Credential type' }).count(), 0);
    assert.equal(await page.getByRole('combobox', { name: 'Instance groups' }).count(), 0);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/workflow_job_templates\/\d+$/);
    const wf = (await t.get(`/api/v2/workflow_job_templates/${page.url().split('/').pop()}/`)).body;
    assert.equal(wf.ask_labels_on_launch, true);
    assert.deepEqual(wf.summary_fields.labels.results.map((l: any) => l.name), ['wf-label']);
    assert.equal((await t.get('/api/v2/labels/?name=wf-label')).body.results[0].organization, org);
    await page.getByLabel('Credentials, labels and instance groups').getByRole('link', { name: 'wf-label' }).waitFor();
    await c.close();
  });

  it('saves a schedule\'s credentials and labels where its template asks for them at launch', async () => {
    const demo = (await t.get('/api/v2/job_templates/?name=Demo+Job+Template')).body.results[0];
    const copy = await t.post(`/api/v2/job_templates/${demo.id}/copy/`, { name: 'Asks credentials and labels' });
    assert.equal(copy.status, 201, copy.text);
    const jt = copy.body.id;
    assert.equal((await t.patch(`/api/v2/job_templates/${jt}/`, { ask_credential_on_launch: true, ask_labels_on_launch: true })).status, 200);
    const c = await consolePage(t, undefined, `/schedules/add?job_template=${jt}`);
    const { page } = c;
    await page.getByLabel(/^Name/).fill('Nightly with vault');
    await page.getByRole('heading', { name: 'Credentials, labels and instance groups' }).waitFor();
    assert.equal(await page.getByRole('combobox', { name: 'Instance groups' }).count(), 0, 'instance groups are not asked');
    await page.getByRole('combobox', { name: 'Credential type' }).selectOption({ label: 'Vault' });
    await lookUp(page, 'Credentials', 'Prod', 'Prod vault');
    await page.getByRole('combobox', { name: 'Labels', exact: true }).fill('nightly');
    await page.getByRole('combobox', { name: 'Labels', exact: true }).press('Enter');
    await c.shot('schedule-form-credentials-labels');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/schedules\/\d+$/);
    const id = page.url().split('/').pop();
    assert.deepEqual((await t.get(`/api/v2/schedules/${id}/credentials/`)).body.results.map((x: any) => x.name), ['Prod vault']);
    assert.deepEqual((await t.get(`/api/v2/schedules/${id}/labels/`)).body.results.map((x: any) => x.name), ['nightly']);
    // Editing starts from what was saved.
    await c.open(`/schedules/${id}/edit`);
    await page.getByRole('list', { name: 'Chosen credentials' }).getByText('Vault (prod): Prod vault').waitFor();
    await page.getByRole('list', { name: 'Chosen labels' }).getByText('nightly').waitFor();
    assert.deepEqual(c.errors, []);
    await c.close();
  });

  it('shows a project only the fields of its source control type, and a manual project a choice of the free directories', async () => {
    await mkdir(path.join(t.env.projectsRoot, 'site_playbooks'), { recursive: true });
    await writeFile(path.join(t.env.projectsRoot, 'site_playbooks', 'site.yml'), '- hosts: all\n  tasks: []\n');
    const c = await consolePage(t, undefined, '/projects/add');
    const { page } = c;
    await page.locator('#field-name').fill('Playbooks on disk');
    await lookUp(page, 'Organization', 'Def', 'Default');
    await page.getByRole('combobox', { name: 'Source control type' }).selectOption({ label: 'Git' });
    await page.getByRole('heading', { name: 'Git details' }).waitFor();
    for (const label of ['Source control URL', 'Source control branch/tag/commit', 'Source control refspec']) await page.getByLabel(label, { exact: true }).waitFor();
    for (const label of ['Clean', 'Delete', 'Track submodules', 'Update revision on launch', 'Allow branch override']) await page.getByRole('checkbox', { name: label, exact: true }).waitFor();
    assert.equal(await page.getByLabel('Cache timeout (seconds)').count(), 0, 'the cache timeout goes with updating on launch');
    await page.getByRole('checkbox', { name: 'Update revision on launch', exact: true }).check();
    await page.getByLabel('Cache timeout (seconds)', { exact: true }).waitFor();
    assert.equal(await page.getByLabel('Playbook directory').count(), 0);
    await c.shot('project-form-git');

    await page.getByRole('combobox', { name: 'Source control type' }).selectOption({ label: 'Manual' });
    await page.getByRole('heading', { name: 'Manual details' }).waitFor();
    // Manual is the type whose value is '': the menu shows it by name, with no blank choice beside it.
    assert.deepEqual(await page.getByRole('combobox', { name: 'Source control type' }).locator('option').allInnerTexts(), ['Manual', 'Git', 'Remote Archive']);
    assert.equal(await page.getByLabel('Source control URL').count(), 0);
    assert.equal(await page.getByRole('checkbox', { name: 'Clean', exact: true }).count(), 0);
    const directory = page.getByRole('combobox', { name: 'Playbook directory' });
    // The Demo Project's checkout is no choice: only free directories of the projects root.
    assert.deepEqual((await directory.locator('option').allInnerTexts()).slice(1), ['site_playbooks']);
    await directory.selectOption('site_playbooks');
    await c.shot('project-form-manual');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/projects\/\d+$/);
    const project = (await t.get(`/api/v2/projects/${page.url().split('/').pop()}/`)).body;
    assert.equal(project.scm_type, '');
    assert.equal(project.local_path, 'site_playbooks');
    assert.equal(project.scm_update_on_launch, false, 'options of another type are not sent');
    assert.deepEqual(c.errors, []);
    await c.close();
  });
});
