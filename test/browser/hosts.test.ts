import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { grant, newInventory, newOrg, newUser } from '../helpers/factories.ts';
import { consolePage } from '../helpers/browser.ts';
import { eventually, waitForRun } from '../helpers/jobs.ts';

describe('console: hosts, their enable switch and Run command on selected hosts', () => {
  let t: TestApp;
  let inventory: { id: number };
  let other: { id: number };
  const hostId = async (name: string) => (await t.get(`/api/v2/hosts/?name=${name}`)).body.results[0].id as number;

  before(async () => {
    t = await createTestApp();
    const org = await newOrg(t, { name: 'Hosts org' });
    inventory = await newInventory(t, org, { name: 'Fleet', hosts: ['web1', 'web2', 'db1'] });
    other = await newInventory(t, org, { name: 'Elsewhere', hosts: ['edge1'] });
  });
  after(() => t.close());

  it('switches a host off in its inventory\'s hosts list and on again in the hosts list', async () => {
    const c = await consolePage(t, undefined, `/inventories/${inventory.id}/hosts`);
    try {
      const { page } = c;
      const web2 = page.getByRole('switch', { name: 'web2 enabled' });
      assert.equal(await web2.isChecked(), true);
      await web2.locator('xpath=..').click();
      await eventually(async () => (await t.get(`/api/v2/hosts/${await hostId('web2')}/`)).body.enabled === false || null, 10_000, 'web2 disabled');
      await page.getByRole('row', { name: /web2/ }).getByText('Off').waitFor();
      assert.equal(await page.getByRole('switch', { name: 'web1 enabled' }).isChecked(), true, 'only the host clicked changes');
      await c.shot('inventory-hosts-enable-switch');

      await c.open('/hosts?name=web2');
      const again = page.getByRole('switch', { name: 'web2 enabled' });
      await page.getByRole('row', { name: /web2/ }).getByText('Off').waitFor();
      await again.locator('xpath=..').click();
      await eventually(async () => (await t.get(`/api/v2/hosts/${await hostId('web2')}/`)).body.enabled === true || null, 10_000, 'web2 enabled');
      await page.getByRole('row', { name: /web2/ }).getByText('On').waitFor();

      await c.open(`/hosts/${await hostId('web2')}`);
      await page.getByRole('switch', { name: 'web2 enabled' }).waitFor();
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });

  it('a user who may only read the inventory sees the switch but cannot move it', async () => {
    const reader = await newUser(t);
    await grant(t, reader, `/api/v2/inventories/${inventory.id}/`, 'read_role');
    const c = await consolePage(t, reader, `/inventories/${inventory.id}/hosts`);
    try {
      const web1 = c.page.getByRole('switch', { name: 'web1 enabled' });
      await web1.waitFor();
      assert.equal(await web1.isDisabled(), true);
      assert.equal((await t.get(`/api/v2/hosts/${await hostId('web1')}/`)).body.enabled, true);
      // Run command stays unavailable, saying why, once hosts are selected.
      await c.page.getByRole('checkbox', { name: 'Select web1' }).check();
      assert.equal(await c.page.getByRole('button', { name: 'Run command' }).getAttribute('aria-disabled'), 'true');
    } finally {
      await c.close();
    }
  });

  it('runs a command on the selected hosts: the ad hoc form opens with their names as the limit', async () => {
    const c = await consolePage(t, undefined, `/inventories/${inventory.id}/hosts`);
    try {
      const { page } = c;
      // The inventory's own Run command sits in the page header; this one is the hosts list's.
      const run = page.getByRole('tabpanel', { name: 'Hosts' }).getByRole('button', { name: 'Run command' });
      await run.waitFor();
      assert.equal(await run.getAttribute('aria-disabled'), 'true', 'nothing selected yet');
      await page.getByRole('checkbox', { name: 'Select web1' }).check();
      await page.getByRole('checkbox', { name: 'Select db1' }).check();
      await c.shot('inventory-hosts-selected');
      await run.click();
      const dialog = page.getByRole('dialog', { name: 'Run a command on 2 hosts' });
      assert.equal(await dialog.getByLabel('Limit').inputValue(), 'db1,web1');
      await dialog.getByLabel('Module name').fill('ping');
      await c.shot('run-command-on-selected-hosts');
      await dialog.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(/\/ad_hoc_commands\/\d+$/);
      const id = Number(page.url().split('/').pop());
      const done = await waitForRun(t, `/api/v2/ad_hoc_commands/${id}/`);
      assert.equal(done.inventory, inventory.id);
      assert.equal(done.limit, 'db1,web1');
      assert.equal(done.status, 'successful', done.result_traceback);
      const ran = (await t.get(`/api/v2/ad_hoc_commands/${id}/events/?event=runner_on_ok&page_size=50`)).body.results.map((e: { host_name: string }) => e.host_name).sort();
      assert.deepEqual(ran, ['db1', 'web1']);
    } finally {
      await c.close();
    }
  });

  it('in the hosts list, hosts of two inventories cannot take one command', async () => {
    const c = await consolePage(t, undefined, '/hosts?order_by=name');
    try {
      const { page } = c;
      await page.getByRole('checkbox', { name: 'Select edge1' }).check();
      const run = page.getByRole('button', { name: 'Run command' });
      // Allowed once the inventory's answer (may the user run commands there?) is in.
      await page.getByRole('button', { name: 'Run command', disabled: false }).waitFor();
      assert.equal(await run.getAttribute('aria-disabled'), null, 'one inventory: allowed');
      await page.getByRole('checkbox', { name: 'Select web1' }).check();
      assert.equal(await run.getAttribute('aria-disabled'), 'true');
      await run.hover();
      await page.getByText('Select hosts of one inventory: a command runs in one inventory.').waitFor();
      await run.click({ force: true });
      assert.equal(await page.getByRole('dialog').count(), 0);
      await c.shot('hosts-selected-two-inventories');
      assert.ok(other.id);
    } finally {
      await c.close();
    }
  });
});
