import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { consolePage } from '../helpers/browser.ts';
import { grant, newInventory, newOrg, newUser } from '../helpers/factories.ts';

describe('console: an activity entry names its objects on its own page', () => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('shows who did what to which objects by name, linked as in the list, with the changes', async () => {
    const org = await newOrg(t, { name: 'Entry org' });
    const inventory = await newInventory(t, org, { name: 'Entry inventory' });
    const grantee = await newUser(t, { username: 'entry-user' });
    await grant(t, grantee, inventory, 'use_role');
    const res = await t.get(`/api/v2/activity_stream/?operation=associate&object1=user&object1_id=${grantee.id}`);
    assert.equal(res.status, 200, res.text);
    const entry = res.body.results[0];
    assert.ok(entry, 'the grant is in the activity stream');
    const created = (await t.get(`/api/v2/activity_stream/?operation=create&object1=inventory&object1_id=${inventory.id}`)).body.results[0];

    const c = await consolePage(t, undefined, `/activity_stream/${entry.id}`);
    try {
      const objects = c.page.locator('[data-field="objects"]');
      await objects.getByRole('link', { name: 'user entry-user' }).waitFor();
      assert.equal(await objects.getByRole('link', { name: 'user entry-user' }).getAttribute('href'), `/users/${grantee.id}`);
      assert.equal(await objects.getByRole('link', { name: 'Entry inventory' }).getAttribute('href'), `/inventories/${inventory.id}`);
      assert.match(await objects.innerText(), /Use of inventory/);
      assert.equal(await c.page.locator('main').getByText(/Object1 id|Object2 id/).count(), 0, 'no raw id fields');
      assert.equal(await objects.getByText(/#\d+/).count(), 0, 'no bare ids');
      assert.equal(await c.page.locator('[data-field="actor"]').getByRole('link', { name: 'admin' }).getAttribute('href'), '/users/1');
      assert.equal(await c.page.locator('[data-field="operation"]').innerText(), 'associate');
      await c.shot('activity-entry-detail');

      await c.open(`/activity_stream/${created.id}`);
      const createdObjects = c.page.locator('[data-field="objects"]');
      await createdObjects.getByRole('link', { name: 'inventory Entry inventory' }).waitFor();
      assert.match(await c.page.locator('[data-field="changes"]').innerText(), /"name": "Entry inventory"/);
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });
});
