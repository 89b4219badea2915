import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { grant, newOrg, newUser, roleOf, type User } from '../helpers/factories.ts';
import { consolePage } from '../helpers/browser.ts';
import { pickReference } from '../helpers/console-forms.ts';

describe('console: access to objects', () => {
  let t: TestApp;
  let inventory: any;
  let reader: User;
  let grantee: User;

  before(async () => {
    t = await createTestApp();
    const org = await newOrg(t, { name: 'Access org' });
    inventory = (await t.post('/api/v2/inventories/', { name: 'Shared inventory', organization: org.id })).body;
    reader = await newUser(t, { username: 'reader' });
    grantee = await newUser(t, { username: 'grantee' });
    await grant(t, reader, inventory, 'read_role');
  });
  after(() => t.close());

  const heldRoles = async (user: User) => (await t.get(`/api/v2/users/${user.id}/roles/?page_size=200`)).body.results.map((r: any) => r.id);

  it('an admin grants a user Use on an inventory through its Access tab, then revokes it', async () => {
    const useRole = await roleOf(t, inventory, 'use_role');
    const c = await consolePage(t, undefined, `/inventories/${inventory.id}/access`);
    try {
      const { page } = c;
      await page.getByRole('button', { name: 'Add roles' }).click();
      const dialog = page.getByRole('dialog');
      await pickReference(page, 'grant-principal', 'grantee', { shows: false });
      await dialog.getByRole('button', { name: 'Remove grantee' }).waitFor();
      await dialog.getByLabel('Use', { exact: true }).check();
      await c.shot('access-grant-modal');
      await dialog.getByRole('button', { name: 'Save' }).click();
      await dialog.waitFor({ state: 'hidden' });
      const row = page.locator('tr[data-user="grantee"]');
      await row.getByText('Use', { exact: true }).waitFor();
      assert.ok((await heldRoles(grantee)).includes(useRole), 'the user holds the inventory use role');
      await c.shot('access-list');

      await row.getByRole('button', { name: 'Remove Use from grantee' }).click();
      await page.getByRole('dialog').getByText('This takes the role').waitFor();
      await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
      await row.waitFor({ state: 'detached' });
      assert.ok(!(await heldRoles(grantee)).includes(useRole), 'the use role is taken back');
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });

  it('a user who may only read an inventory sees no Edit, Delete or Add roles, and no Add on organizations', async () => {
    // The admin sees the buttons on the same pages: what the reader misses is hidden for him alone.
    const admin = await consolePage(t, undefined, '/inventories');
    try {
      await admin.page.getByRole('button', { name: 'Edit Shared inventory' }).waitFor();
      await admin.open('/organizations');
      await admin.page.getByRole('link', { name: 'Add', exact: true }).waitFor();
    } finally {
      await admin.close();
    }

    const c = await consolePage(t, reader, '/inventories');
    try {
      const { page } = c;
      await page.getByRole('link', { name: 'Shared inventory' }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Edit Shared inventory' }).count(), 0);
      assert.equal(await page.getByRole('button', { name: 'Delete Shared inventory' }).count(), 0);
      await c.shot('reader-inventories');

      await c.open(`/inventories/${inventory.id}`);
      await page.getByRole('heading', { name: 'Shared inventory' }).waitFor();
      await page.locator('[data-field="name"]').waitFor();
      assert.equal(await page.getByRole('button', { name: /^(Edit|Delete)/ }).count(), 0);

      await c.open(`/inventories/${inventory.id}/access`);
      await page.locator('tr[data-user="reader"]').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Add roles' }).count(), 0);
      assert.equal(await page.getByRole('button', { name: /^Remove / }).count(), 0);
      await c.shot('reader-inventory-access');

      await c.open('/organizations');
      await page.getByText(/No organizations yet|Access org/).first().waitFor();
      assert.equal(await page.getByRole('link', { name: /^Add/ }).count(), 0);
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });

  it("a user's Roles tab grants from the user's side and lists the role", async () => {
    const c = await consolePage(t, undefined, `/users/${grantee.id}/roles`);
    try {
      const { page } = c;
      await page.getByRole('button', { name: 'Add roles' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Kind of object').selectOption('inventories');
      await pickReference(page, 'grant-resource', 'Shared inventory');
      await dialog.getByLabel('Admin', { exact: true }).check();
      await dialog.getByRole('button', { name: 'Save' }).click();
      await dialog.waitFor({ state: 'hidden' });
      await page.getByRole('row').filter({ hasText: 'Shared inventory' }).filter({ hasText: 'Admin' }).waitFor();
      assert.ok((await heldRoles(grantee)).includes(await roleOf(t, inventory, 'admin_role')));
      await c.shot('user-roles');
    } finally {
      await c.close();
    }
  });
});
