import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { systemContextIn } from '../src/api/context.ts';
import { createObject } from '../src/api/crud.ts';
import { loadEnvConfig, type EnvConfig } from '../src/config/env.ts';
import { settingRegistry } from '../src/composition/settings.ts';
import { loadSettings } from '../src/config/settings/store.ts';
import { decryptedInputs } from '../src/resources/credentials/credential-use.ts';
import { clearConfiguration } from '../src/resources/notification-templates/configuration.ts';
import { configureSecretKey } from '../src/secrets/encryption.ts';
import { bootstrap } from '../src/server/bootstrap.ts';
import { inspect, manage } from './helpers/standalone.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

/** A data directory with a credential and a secret setting, encrypted under the environment's key. */
async function seeded(extra: Record<string, string> = {}) {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'drover-rotate-'));
  const env = await loadEnvConfig({ SVC_DATA_DIR: dataDir, SVC_ADMIN_PASSWORD: 'x', SVC_NODE_NAME: 'rotate-node', ...extra });
  const credentialId = await inspect(env, async (services) => {
    await bootstrap(services);
    configureSecretKey(env.secretKey);
    await services.settings.update(systemContextIn(services), services.settings.registry.settingsOf('system')!.filter((d) => d.name === 'REDHAT_PASSWORD'), { REDHAT_PASSWORD: 'bind-secret' }, 'update');
    const [type] = await services.db.query<AnyRow>(`SELECT id FROM credential_types WHERE namespace = 'aws'`);
    const row = await services.db.transaction((tx) =>
      createObject<AnyRow>(tx, systemContextIn(services), services.resources.get('credential'), { name: 'AWS', organization: 1, credential_type: type.id, inputs: { username: 'AKIA', password: 'aws-secret' } }),
    );
    await services.db.transaction((tx) =>
      createObject<AnyRow>(tx, systemContextIn(services), services.resources.get('notification_template'), {
        name: 'Chat', organization: 1, notification_type: 'slack', notification_configuration: { token: 'slack-secret', channels: ['#ops'] },
      }),
    );
    return row.id as number;
  });
  return { env, credentialId };
}

const storedInputs = (env: EnvConfig, id: number) => inspect(env, async ({ db }) => (await db.query<AnyRow>('SELECT inputs FROM credentials WHERE id = $1', [id]))[0].inputs);
const storedSetting = (env: EnvConfig) => inspect(env, async ({ db }) => (await db.query<AnyRow>(`SELECT value FROM settings WHERE key = 'REDHAT_PASSWORD'`))[0].value);

describe('drover manage regenerate_secret_key', () => {
  describe('with the key in the data directory (embedded mode)', () => {
    let env: EnvConfig;
    let credentialId: number;
    before(async () => ({ env, credentialId } = await seeded()));

    it('re-encrypts credentials and secret settings, rewrites secret_key (0600) and prints the new key', async () => {
      const oldKey = env.secretKey;
      const before = await storedInputs(env, credentialId);
      const beforeSetting = await storedSetting(env);
      const res = await manage(env, 'regenerate_secret_key');
      assert.equal(res.code, 0, res.err.join('\n'));
      const [newKey] = res.out;
      assert.match(newKey, /^[A-Za-z0-9_-]{64}$/);
      assert.notEqual(newKey, oldKey);
      assert.deepEqual(res.err, [
        'Re-encrypted 1 settings, 1 credential inputs, 0 job credential passwords, 0 job survey passwords, 0 survey passwords, 0 job template webhook keys, 0 workflow job template webhook keys, 0 event rule webhook keys, 0 outbound webhook signing keys, 1 notification templates, 0 service request survey passwords.',
        `The new key is stored in ${path.join(env.dataDir, 'secret_key')}; restart the service to use it.`,
      ]);
      const file = path.join(env.dataDir, 'secret_key');
      assert.equal((await readFile(file, 'utf8')).trim(), newKey);
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      assert.ok(!(await readdir(env.dataDir)).includes('secret_key.new'));

      const restarted = await loadEnvConfig({ SVC_DATA_DIR: env.dataDir, SVC_ADMIN_PASSWORD: 'x', SVC_NODE_NAME: 'rotate-node' });
      assert.equal(restarted.secretKey, newKey);
      env = restarted;
      const after = await storedInputs(env, credentialId);
      assert.equal(after.username, 'AKIA');
      assert.notEqual(after.password, before.password);
      assert.notEqual(await storedSetting(env), beforeSetting);
      await inspect(restarted, async ({ db }) => {
        configureSecretKey(newKey);
        assert.equal((await decryptedInputs(db, credentialId)).inputs.password, 'aws-secret');
        assert.equal((await loadSettings(db, restarted, settingRegistry())).get('REDHAT_PASSWORD'), 'bind-secret');
        const [chat] = await db.query<AnyRow>(`SELECT notification_configuration AS c FROM notification_templates WHERE name = 'Chat'`);
        assert.equal(clearConfiguration(chat.c).token, 'slack-secret');
        configureSecretKey(oldKey);
        await assert.rejects(decryptedInputs(db, credentialId), /cannot be decrypted: was SVC_SECRET_KEY changed\?/);
      });
    });

    it('with a wrong key: fails with a clear message and changes nothing', async () => {
      const wrong = { ...env, secretKey: 'not-the-key' };
      const before = await storedInputs(env, credentialId);
      const keyBefore = await readFile(path.join(env.dataDir, 'secret_key'), 'utf8');
      const res = await manage(wrong, 'regenerate_secret_key');
      assert.equal(res.code, 1);
      assert.deepEqual(res.out, []);
      assert.match(res.err[0], /^Error: .*cannot be decrypted.*was SVC_SECRET_KEY changed\?.*; nothing was changed\.$/);
      assert.deepEqual(await storedInputs(env, credentialId), before);
      assert.equal(await readFile(path.join(env.dataDir, 'secret_key'), 'utf8'), keyBefore);
    });

    it('takes no arguments', async () => {
      assert.equal((await manage(env, 'regenerate_secret_key', '--force')).code, 2);
    });
  });

  it('with SVC_SECRET_KEY set: says the variable must be changed, and writes no file', async () => {
    const { env, credentialId } = await seeded({ SVC_SECRET_KEY: 'configured-key' });
    const res = await manage(env, 'regenerate_secret_key');
    assert.equal(res.code, 0, res.err.join('\n'));
    assert.match(res.err[1], /^Set SVC_SECRET_KEY to the new key/);
    assert.ok(!(await readdir(env.dataDir)).includes('secret_key'));
    await inspect(env, async ({ db }) => {
      configureSecretKey(res.out[0]);
      assert.equal((await decryptedInputs(db, credentialId)).inputs.password, 'aws-secret');
    });
  });

  it('is listed by help', async () => {
    const env = await loadEnvConfig({ SVC_DATA_DIR: await mkdtemp(path.join(tmpdir(), 'drover-rotate-')), SVC_ADMIN_PASSWORD: 'x' });
    const help = await manage(env, 'help');
    assert.ok(help.out.some((line) => line.trimStart().startsWith('regenerate_secret_key')));
  });
});
