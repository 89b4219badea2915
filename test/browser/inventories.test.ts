import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { newOrg } from '../helpers/factories.ts';
import { consolePage } from '../helpers/browser.ts';
import { pickReference } from '../helpers/console-forms.ts';

describe('console: inventories, hosts and groups', () => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp();
    await newOrg(t, { name: 'Inv org' });
  });
  after(() => t.close());

  it('creates an inventory and a host; host variables that do not parse are refused before saving', async () => {
    const c = await consolePage(t, undefined, '/inventories/add');
    try {
      const { page } = c;
      await page.locator('#field-name').fill('Web servers');
      await pickReference(page, 'field-organization', 'Inv org');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.waitForURL(/\/inventories\/\d+$/);
      const inventoryId = Number(new URL(page.url()).pathname.split('/').pop());
      const inventory = (await t.get(`/api/v2/inventories/${inventoryId}/`)).body;
      assert.equal(inventory.name, 'Web servers');
      assert.equal(inventory.summary_fields.organization.name, 'Inv org');

      await c.open(`/inventories/${inventoryId}/hosts`);
      await page.getByRole('link', { name: 'Add', exact: true }).click();
      await page.waitForURL(/\/hosts\/add/);
      await page.locator('#field-name').fill('web1.example.com');
      await page.locator('#field-variables').fill('---\nhttp_port: [80\n');
      await page.getByText(/^YAML:/).waitFor();
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByText('Fix the syntax before saving.').or(page.getByText(/^YAML:/)).first().waitFor();
      await c.shot('host-variables-error');
      assert.ok(page.url().includes('/hosts/add'), 'still on the form');
      assert.equal((await t.get(`/api/v2/inventories/${inventoryId}/hosts/`)).body.count, 0);

      await page.locator('#field-variables').fill('---\nhttp_port: 80\n');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.waitForURL(/\/hosts\/\d+$/);
      const hosts = (await t.get(`/api/v2/inventories/${inventoryId}/hosts/`)).body.results;
      assert.equal(hosts.length, 1);
      assert.equal(hosts[0].name, 'web1.example.com');
      assert.match(hosts[0].variables, /http_port: 80/);
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });

  it('the group tree opens a group onto its children, and adds a child group', async () => {
    const org = (await t.get('/api/v2/organizations/?name=Inv%20org')).body.results[0];
    const inventory = (await t.post('/api/v2/inventories/', { name: 'Tree', organization: org.id })).body;
    const parent = (await t.post('/api/v2/groups/', { name: 'datacenter', inventory: inventory.id })).body;
    const child = (await t.post(`/api/v2/groups/${parent.id}/children/`, { name: 'rack-1', inventory: inventory.id })).body;
    assert.equal((await t.post(`/api/v2/groups/${child.id}/hosts/`, { name: 'node-a', inventory: inventory.id })).status, 201);

    const c = await consolePage(t, undefined, `/inventories/${inventory.id}/groups`);
    try {
      const { page } = c;
      const tree = page.getByRole('tree');
      await tree.locator('li[data-group="datacenter"]').waitFor();
      assert.equal(await tree.locator('li[data-group="rack-1"]').count(), 0, 'children wait until opened');
      await page.getByRole('button', { name: 'Expand datacenter' }).click();
      const rack = tree.locator('li[data-group="rack-1"]');
      await rack.waitFor();
      await rack.getByText('1 host', { exact: true }).waitFor();

      await page.getByRole('button', { name: 'Add a child group to rack-1' }).click();
      await page.locator('#child-name').fill('shelf-a');
      await page.getByRole('dialog').getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('dialog').waitFor({ state: 'hidden' });
      await page.getByRole('button', { name: 'Expand rack-1' }).click();
      await tree.locator('li[data-group="shelf-a"]').waitFor();
      const children = (await t.get(`/api/v2/groups/${child.id}/children/`)).body.results.map((g: any) => g.name);
      assert.deepEqual(children, ['shelf-a']);
      await c.shot('group-tree');
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });
});
