import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadEnvConfig } from '../../src/config/env.ts';

const tempDir = () => mkdtemp(path.join(tmpdir(), 'drover-config-'));

describe('environment configuration', () => {
  it('server mode names every missing required variable in one message', async () => {
    await assert.rejects(loadEnvConfig({ POSTGRES_HOST: 'db.example' }), (err: Error) => {
      assert.ok(err instanceof ConfigError);
      for (const name of ['POSTGRES_PASSWORD', 'SVC_SECRET_KEY', 'SVC_BROADCAST_WEBSOCKET_SECRET', 'SVC_ADMIN_PASSWORD', 'SVC_CSRF_TRUSTED_ORIGINS']) {
        assert.match(err.message, new RegExp(name));
      }
      return true;
    });
  });

  it('server mode names only the variables that are missing', async () => {
    await assert.rejects(
      loadEnvConfig({
        POSTGRES_HOST: 'db.example',
        POSTGRES_PASSWORD: 'pw',
        SVC_SECRET_KEY: 'k',
        SVC_BROADCAST_WEBSOCKET_SECRET: 'b',
        SVC_CSRF_TRUSTED_ORIGINS: 'https://drover.example',
      }),
      /missing required environment variables: SVC_ADMIN_PASSWORD$/,
    );
  });

  it('server mode takes its connection and defaults from the environment', async () => {
    const env = await loadEnvConfig({
      POSTGRES_HOST: 'db.example',
      POSTGRES_PORT: '6543',
      POSTGRES_PASSWORD: 'pw',
      SVC_SECRET_KEY: 'k',
      SVC_BROADCAST_WEBSOCKET_SECRET: 'b',
      SVC_ADMIN_PASSWORD: 'a',
      SVC_CSRF_TRUSTED_ORIGINS: 'https://drover.example, https://other.example',
    });
    assert.equal(env.mode, 'server');
    assert.deepEqual(env.postgres, { host: 'db.example', port: 6543, user: 'drover', password: 'pw', database: 'drover' });
    assert.deepEqual(env.csrfTrustedOrigins, ['https://drover.example', 'https://other.example']);
    assert.equal(env.httpPort, 80);
    assert.equal(env.httpsPort, 443);
    assert.equal(env.adminUser, 'admin');
    assert.deepEqual(env.allowedHosts, ['*']);
    assert.equal(env.nodeType, 'hybrid');
    assert.equal(env.sessionCookieSecure, true);
    assert.equal(env.csrfCookieSecure, true);
  });

  it('embedded mode generates a secret key readable only by its owner, and keeps it', async () => {
    const dir = await tempDir();
    const first = await loadEnvConfig({ SVC_DATA_DIR: dir });
    assert.equal(first.mode, 'embedded');
    assert.equal(first.httpPort, 8013);
    assert.equal(first.httpsPort, 8043);
    assert.ok(first.secretKey.length >= 40);
    const file = path.join(dir, 'secret_key');
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.equal((await readFile(file, 'utf8')).trim(), first.secretKey);
    const second = await loadEnvConfig({ SVC_DATA_DIR: dir });
    assert.equal(second.secretKey, first.secretKey);
    assert.equal(first.adminPassword, null);
  });

  it('refuses malformed values with a clear message', async () => {
    const dir = await tempDir();
    await assert.rejects(loadEnvConfig({ SVC_DATA_DIR: dir, NGINX_HTTP_PORT: 'eighty' }), /NGINX_HTTP_PORT must be a port number/);
    await assert.rejects(loadEnvConfig({ SVC_DATA_DIR: dir, SVC_NODE_TYPE: 'worker' }), /SVC_NODE_TYPE must be one of hybrid, control, execution/);
    await assert.rejects(loadEnvConfig({ SVC_DATA_DIR: dir, SESSION_COOKIE_SECURE: 'maybe' }), /SESSION_COOKIE_SECURE must be true or false/);
    await assert.rejects(loadEnvConfig({ SVC_DATA_DIR: dir, SVC_TLS_CERT: '/x.crt' }), /SVC_TLS_CERT and SVC_TLS_KEY must be given together/);
    await assert.rejects(loadEnvConfig({ SVC_DATA_DIR: dir, SVC_SECRET_STORE_URL: 'http://127.0.0.1:8200/v1' }), /SVC_SECRET_STORE_URL must be a scheme and host/);
  });

  it('reads the optional variables', async () => {
    const env = await loadEnvConfig({
      SVC_DATA_DIR: await tempDir(),
      SVC_ALLOWED_HOSTS: 'drover.example,.corp.example',
      SVC_NODE_NAME: 'node-a',
      SVC_NODE_TYPE: 'control',
      SESSION_COOKIE_SECURE: 'False',
      CSRF_COOKIE_SECURE: 'false',
      SVC_ADMIN_USER: 'root',
    });
    assert.deepEqual(env.allowedHosts, ['drover.example', '.corp.example']);
    assert.equal(env.nodeName, 'node-a');
    assert.equal(env.nodeType, 'control');
    assert.equal(env.sessionCookieSecure, false);
    assert.equal(env.csrfCookieSecure, false);
    assert.equal(env.adminUser, 'root');
  });
});
