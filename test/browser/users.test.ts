import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { newOrg, newUser, type User } from '../helpers/factories.ts';
import { consolePage } from '../helpers/browser.ts';

describe('console: a user\'s tokens and organizations tabs', () => {
  let t: TestApp;
  let alice: User;

  before(async () => {
    t = await createTestApp();
    const plainOrg = await newOrg(t, { name: 'Ops' });
    const adminOrg = await newOrg(t, { name: 'Builds', description: 'CI and packaging' });
    await newOrg(t, { name: 'Elsewhere' });
    alice = await newUser(t, { username: 'alice', member: plainOrg, admin: adminOrg });
  });
  after(() => t.close());

  it('lists the organizations the user belongs to with the role held in each', async () => {
    const c = await consolePage(t, undefined, `/users/${alice.id}/organizations`);
    try {
      const { page } = c;
      const table = page.getByRole('grid', { name: 'Organizations of alice' }).or(page.getByRole('table', { name: 'Organizations of alice' }));
      await table.getByRole('row', { name: /Builds/ }).waitFor();
      assert.match(await table.getByRole('row', { name: /Builds/ }).innerText(), /CI and packaging\s+Admin/);
      assert.match(await table.getByRole('row', { name: /Ops/ }).innerText(), /Member/);
      assert.equal(await table.getByRole('row', { name: /Elsewhere/ }).count(), 0);
      assert.equal(await table.getByRole('row').count(), 3, 'a header and two organizations');
      await c.shot('user-organizations-tab');

      // The API makes tokens only for the caller: an administrator is not offered to make alice's.
      const optionsRead = page.waitForResponse((res) => res.request().method() === 'OPTIONS' && res.url().endsWith(`/users/${alice.id}/personal_tokens/`));
      await page.getByRole('tab', { name: 'Tokens' }).click();
      await page.getByRole('heading', { name: 'No tokens' }).waitFor();
      await optionsRead;
      assert.equal(await page.getByRole('button', { name: 'Create token' }).count(), 0);
    } finally {
      await c.close();
    }
  });

  it('creates a read token shown once, which then authenticates reads only, and deletes it', async () => {
    const c = await consolePage(t, alice, `/users/${alice.id}/tokens`);
    try {
      const { page } = c;
      await page.getByRole('heading', { name: 'No tokens' }).waitFor();
      await page.getByRole('button', { name: 'Create token' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Description').fill('Nightly report');
      await dialog.getByLabel('Scope').selectOption('read');
      await dialog.getByRole('button', { name: 'Create' }).click();
      await dialog.getByText('Copy the token now: it is not shown again.').waitFor();
      const token = await dialog.getByLabel('Token').inputValue();
      assert.match(token, /^\S{20,}$/);
      await c.shot('user-token-created');

      const bearer = { authorization: `Bearer ${token}` };
      const me = await t.get('/api/v2/me/', { as: null, headers: bearer });
      assert.equal(me.status, 200);
      assert.equal(me.body.results[0].username, 'alice');
      assert.equal((await t.post('/api/v2/organizations/', { name: 'Nope' }, { as: null, headers: bearer })).status, 403, 'a read token cannot write');

      await dialog.getByRole('button', { name: 'Done' }).click();
      const row = page.getByRole('row', { name: /Nightly report/ });
      await row.waitFor();
      assert.match(await row.innerText(), /Personal access token\s+read/);
      assert.equal(await page.getByText(token).count(), 0, 'the list never shows the token');
      await c.shot('user-tokens-tab');

      await row.getByRole('button', { name: 'Delete Nightly report' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('heading', { name: 'No tokens' }).waitFor();
      assert.equal((await t.get(`/api/v2/users/${alice.id}/tokens/`)).body.count, 0);
      assert.equal((await t.get('/api/v2/me/', { as: null, headers: bearer })).status, 401);
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });
});
