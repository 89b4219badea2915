import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, ADMIN, type TestApp } from './helpers/app.ts';
import { newOrg, newUser, type User } from './helpers/factories.ts';
import { runCollectionPlay } from './helpers/awx-collection.ts';
import { startVaultServer, type VaultServer } from './helpers/vault-server.ts';

const task = (name: string, module: string, args: object) => ({ name, [`awx.awx.${module}`]: args });
const VAULT_TOKEN = 'collection-vault-token';

/**
 * The awx.awx collection's credential_input_source module against Drover: it links a credential's
 * input to a HashiCorp Vault lookup, changes its metadata, and removes it; a user who may not
 * administer the target fails (docs/credential-input-sources.md).
 */
describe('the awx.awx collection and credential input sources', () => {
  let t: TestApp;
  let host: string;
  let vault: VaultServer;
  let member: User;
  const sources = async () => (await t.get('/api/v2/credential_input_sources/?target_credential__name=Collection%20target')).body.results;

  before(async () => {
    t = await createTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    host = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    vault = await startVaultServer({ tokens: [VAULT_TOKEN], v2: { secret: { 'app/ssh': { password: 'from-vault' } } } });
    assert.equal((await t.patch('/api/v2/settings/security/', { OUTBOUND_URL_ALLOWLIST: ['127.0.0.1'] })).status, 200);
    const org = (await newOrg(t, { name: 'Sources Org' })).id;
    const kv = (await t.get('/api/v2/credential_types/?namespace=hashivault_kv')).body.results[0].id;
    const ssh = (await t.get('/api/v2/credential_types/?namespace=ssh')).body.results[0].id;
    for (const [name, type, inputs] of [['Collection vault', kv, { url: vault.url, token: VAULT_TOKEN, api_version: 'v2' }], ['Collection target', ssh, { username: 'deploy' }]] as const) {
      assert.equal((await t.post('/api/v2/credentials/', { name, organization: org, credential_type: type, inputs })).status, 201);
    }
    member = await newUser(t, { member: org });
  });
  after(async () => {
    await t?.close();
    await vault?.close();
  });

  it('creates, changes and deletes a link; the source answers a test; a member may not link', async () => {
    const link = { target_credential: 'Collection target', source_credential: 'Collection vault', input_field_name: 'password' };
    const created = await runCollectionPlay(host, ADMIN, [
      task('link', 'credential_input_source', { ...link, metadata: { secret_path: '/secret/app/ssh', secret_key: 'password' } }),
      task('again', 'credential_input_source', { ...link, metadata: { secret_path: '/secret/app/ssh', secret_key: 'password' } }),
    ]);
    assert.deepEqual(created.failures, []);
    assert.deepEqual(created.tasks.map((task) => task.changed), [true, false], 'the second run finds it as it is');
    const [source] = await sources();
    assert.equal(source.input_field_name, 'password');
    assert.deepEqual(source.metadata, { secret_path: '/secret/app/ssh', secret_key: 'password' });
    const tested = await t.post(`/api/v2/credentials/${source.source_credential}/test/`, { metadata: source.metadata });
    assert.equal(tested.status, 202, tested.text);

    const changed = await runCollectionPlay(host, ADMIN, [task('change', 'credential_input_source', { ...link, metadata: { secret_path: '/secret/app/ssh', secret_key: 'other' } })]);
    assert.deepEqual(changed.failures, []);
    assert.equal((await sources())[0].metadata.secret_key, 'other');

    const refused = await runCollectionPlay(host, member, [task('member', 'credential_input_source', { ...link, input_field_name: 'ssh_key_data', metadata: { secret_path: '/secret/app/ssh', secret_key: 'password' } })]);
    assert.equal(refused.failures.length, 1);
    assert.equal((await sources()).length, 1);

    const removed = await runCollectionPlay(host, ADMIN, [task('remove', 'credential_input_source', { ...link, state: 'absent' })]);
    assert.deepEqual(removed.failures, []);
    assert.deepEqual(await sources(), []);
  });
});
