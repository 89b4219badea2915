import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { newOrg } from '../helpers/factories.ts';
import { consolePage } from '../helpers/browser.ts';
import { pickReference } from '../helpers/console-forms.ts';
import { decryptStored } from '../../src/resources/credentials/credential-inputs.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

describe('console: credential form', () => {
  let t: TestApp;
  const key = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

  before(async () => {
    t = await createTestApp();
    await newOrg(t, { name: 'Cred org' });
  });
  after(() => t.close());

  /** The inputs as stored, secrets decrypted: what runs get. */
  const storedInputs = async (id: number) => {
    const [row] = await t.db.query<AnyRow>('SELECT inputs FROM credentials WHERE id = $1', [id]);
    return decryptStored(row.inputs);
  };

  it('creates a Machine credential with a password and an SSH key, then renames it keeping the secrets', async () => {
    const c = await consolePage(t, undefined, '/credentials/add');
    try {
      const { page } = c;
      await page.locator('#field-name').fill('Deploy key');
      await pickReference(page, 'field-organization', 'Cred org');
      await pickReference(page, 'field-credential_type', 'Machine');
      await page.locator('#input-username').fill('deployer');
      await page.locator('#input-password').fill('s3cret-pass');
      await page.locator('#input-ssh_key_data').fill('not a key');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      // The API's message lands under the SSH key, and nothing is created.
      await page.locator('#input-ssh_key_data-help').filter({ hasText: /key/i }).waitFor();
      assert.equal((await t.get('/api/v2/credentials/?name=Deploy%20key')).body.count, 0);
      await c.shot('credential-form-error');

      await page.locator('#input-ssh_key_data').fill(key);
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.waitForURL(/\/credentials\/\d+$/);
      const id = Number(new URL(page.url()).pathname.split('/').pop());
      const saved = (await t.get(`/api/v2/credentials/${id}/`)).body;
      assert.equal(saved.name, 'Deploy key');
      assert.equal(saved.inputs.username, 'deployer');
      assert.equal(saved.inputs.password, '$encrypted$');
      assert.equal(saved.inputs.ssh_key_data, '$encrypted$');
      const stored = await storedInputs(id);
      assert.equal(stored.password, 's3cret-pass');
      assert.equal(String(stored.ssh_key_data).trim(), key.trim());

      await c.open(`/credentials/${id}/edit`);
      await page.getByRole('button', { name: 'Replace Password' }).waitFor();
      await page.getByRole('button', { name: 'Replace SSH Private Key' }).waitFor();
      await c.shot('credential-edit');
      await page.locator('#field-name').fill('Deploy key renamed');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.waitForURL(new RegExp(`/credentials/${id}$`));
      assert.equal((await t.get(`/api/v2/credentials/${id}/`)).body.name, 'Deploy key renamed');
      const after = await storedInputs(id);
      assert.equal(after.password, 's3cret-pass', 'the password is unchanged');
      assert.equal(String(after.ssh_key_data).trim(), key.trim(), 'the key is unchanged');

      // Replacing one secret changes it alone.
      await c.open(`/credentials/${id}/edit`);
      await page.getByRole('button', { name: 'Replace Password' }).click();
      await page.locator('#input-password').fill('new-pass');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.waitForURL(new RegExp(`/credentials/${id}$`));
      const replaced = await storedInputs(id);
      assert.equal(replaced.password, 'new-pass');
      assert.equal(String(replaced.ssh_key_data).trim(), key.trim());
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });
});
