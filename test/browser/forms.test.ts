import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { consolePage } from '../helpers/browser.ts';
import { waitForRun } from '../helpers/jobs.ts';
import { createDemoData } from '../../src/server/demo-data.ts';
import { grant, newUser } from '../helpers/factories.ts';

describe('web console: ad hoc commands', () => {
  let t: TestApp;
  let inventory: number;
  before(async () => {
    t = await createTestApp();
    await createDemoData(t.services);
    inventory = (await t.get('/api/v2/inventories/?name=Demo+Inventory')).body.results[0].id;
  });
  after(() => t.close());

  it('runs a command on an inventory\'s hosts from its page and goes to the command', async () => {
    const c = await consolePage(t, undefined, `/inventories/${inventory}`);
    await c.page.getByRole('button', { name: 'Run command' }).click();
    const dialog = c.page.getByRole('dialog');
    await dialog.getByLabel('Module name').fill('ping');
    await c.shot('run-command');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await c.page.waitForURL(/\/ad_hoc_commands\/\d+$/);
    const id = Number(c.page.url().split('/').pop());
    const done = await waitForRun(t, `/api/v2/ad_hoc_commands/${id}/`);
    assert.equal(done.module_name, 'ping');
    assert.equal(done.inventory, inventory);
    assert.equal(done.status, 'successful', done.result_traceback);
    await c.close();
  });

  it('shows the API\'s message on the field it names', async () => {
    const c = await consolePage(t, undefined, `/inventories/${inventory}`);
    await c.page.getByRole('button', { name: 'Run command' }).click();
    const dialog = c.page.getByRole('dialog');
    await dialog.getByLabel('Module name').fill('command');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText(/No argument passed to command module/).waitFor();
    await c.close();
  });

  it('offers no Run command to a user who may only read the inventory', async () => {
    const reader = await newUser(t);
    await grant(t, reader, `/api/v2/inventories/${inventory}/`, 'read_role');
    const c = await consolePage(t, reader, `/inventories/${inventory}`);
    await c.page.getByRole('heading', { name: 'Demo Inventory' }).waitFor();
    assert.equal(await c.page.getByRole('button', { name: 'Run command' }).count(), 0);
    assert.equal(await c.page.getByRole('button', { name: 'Edit' }).count(), 0);
    assert.equal(await c.page.getByRole('button', { name: 'Delete' }).count(), 0);
    // The admin sees all three on the same page.
    const admin = await consolePage(t, undefined, `/inventories/${inventory}`);
    for (const name of ['Run command', 'Edit', 'Delete']) await admin.page.getByRole('button', { name, exact: true }).waitFor();
    await admin.close();
    await c.close();
  });
});

describe('web console: job template form', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
    await createDemoData(t.services);
  });
  after(() => t.close());

  it('offers the playbooks of the chosen project, and shows the API\'s message on the field it names', async () => {
    const jt = (await t.get('/api/v2/job_templates/?name=Demo+Job+Template')).body.results[0];
    const c = await consolePage(t, undefined, `/job_templates/${jt.id}/edit`);
    const playbook = c.page.getByRole('combobox', { name: 'Playbook' });
    await playbook.locator('option', { hasText: 'hello_world.yml' }).waitFor({ state: 'attached' });
    assert.equal(await playbook.inputValue(), 'hello_world.yml');
    await c.page.locator('#field-name').fill('');
    await c.page.getByRole('button', { name: 'Save' }).click();
    await c.page.getByText('This field may not be blank.').waitFor();
    assert.equal((await t.get(`/api/v2/job_templates/${jt.id}/`)).body.name, 'Demo Job Template');
    await c.page.locator('#field-name').fill('Renamed Template');
    await c.page.getByRole('button', { name: 'Save' }).click();
    await c.page.waitForURL(new RegExp(`/job_templates/${jt.id}$`));
    assert.equal((await t.get(`/api/v2/job_templates/${jt.id}/`)).body.name, 'Renamed Template');
    await c.shot('job-template-detail');
    await c.close();
  });
});
