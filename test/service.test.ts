import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generate } from 'selfsigned';
import { loadEnvConfig } from '../src/config/env.ts';
import { startService, type RunningService } from '../src/server/start.ts';
import { serverMode } from './helpers/database.ts';
import { standaloneValues } from './helpers/standalone.ts';

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
  peerSubject?: string;
}

function call(url: string, headers: Record<string, string> = {}): Promise<Reply> {
  const client = url.startsWith('https') ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.get(url, { headers, rejectUnauthorized: false, agent: false } as https.RequestOptions, (res) => {
      const socket = res.socket as import('node:tls').TLSSocket;
      const peer = typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate() : undefined;
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => {
        resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : null, peerSubject: peer?.subject?.CN as string | undefined });
      });
    });
    req.on('error', reject);
  });
}

const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });

/** Environment for a service on its own data directory (and, in server mode, its own empty database). */
const serviceEnv = (extra: Record<string, string> = {}) =>
  standaloneValues('service', { NGINX_HTTP_PORT: '0', NGINX_HTTPS_PORT: '0', SVC_LISTEN_ADDRESS: '127.0.0.1', ...extra });

describe('running service', () => {
  let service: RunningService;
  let lines: string[];
  let adminPassword: string;
  let dataDir: string;
  let values: Record<string, string>;

  before(async () => {
    ({ dataDir, values } = await serviceEnv({ SVC_NODE_NAME: 'node-under-test', SVC_NODE_TYPE: 'hybrid' }));
    lines = [];
    service = await startService(await loadEnvConfig(values), (l) => lines.push(l));
    if (serverMode()) adminPassword = values.SVC_ADMIN_PASSWORD;
    else {
      const printed = lines.join('\n').match(/with password: (\S+)/);
      assert.ok(printed, 'the generated admin password is printed at first start');
      adminPassword = printed[1];
    }
  });
  after(() => service.close());

  it('answers over HTTP and HTTPS with the product headers', async () => {
    for (const url of [`http://127.0.0.1:${service.httpPort}/api/v2/ping/`, `https://127.0.0.1:${service.httpsPort}/api/v2/ping/`]) {
      const res = await call(url);
      assert.equal(res.status, 200);
      assert.equal(res.headers['x-api-product-name'], 'Drover');
      assert.match(String(res.headers['x-api-product-version']), /^\d+\.\d+\.\d+/);
    }
  });

  it('generated a self-signed certificate into the data directory', async () => {
    assert.ok(existsSync(path.join(dataDir, 'tls', 'selfsigned.crt')));
    const res = await call(`https://127.0.0.1:${service.httpsPort}/api/v2/ping/`);
    assert.equal(res.peerSubject, 'node-under-test');
  });

  it('records the node name and type, visible in ping without authentication', async () => {
    const res = await call(`http://127.0.0.1:${service.httpPort}/api/v2/ping/`);
    assert.equal(res.body.active_node, 'node-under-test');
    const node = res.body.instances.find((i: any) => i.node === 'node-under-test');
    assert.equal(node.node_type, 'hybrid');
    assert.ok(node.capacity > 0);
  });

  it('the admin logs in with the configured or printed password', async () => {
    const me = await call(`http://127.0.0.1:${service.httpPort}/api/v2/me/`, basic('admin', adminPassword));
    assert.equal(me.status, 200);
    assert.equal(me.body.results[0].username, 'admin');
    assert.equal(me.body.results[0].is_superuser, true);
    const wrong = await call(`http://127.0.0.1:${service.httpPort}/api/v2/me/`, basic('admin', 'wrong'));
    assert.equal(wrong.status, 401);
  });

  it('answers the API roots and config', async () => {
    const api = await call(`http://127.0.0.1:${service.httpPort}/api/`);
    assert.deepEqual(api.body.available_versions, { v2: '/api/v2/' });
    assert.equal(api.body.current_version, '/api/v2/');
    const v2 = await call(`http://127.0.0.1:${service.httpPort}/api/v2/`);
    for (const name of ['organizations', 'users', 'teams', 'activity_stream', 'ping', 'config', 'me', 'settings']) {
      assert.equal(typeof v2.body[name], 'string', `${name} is listed`);
    }
    const anonymousConfig = await call(`http://127.0.0.1:${service.httpPort}/api/v2/config/`);
    assert.equal(anonymousConfig.status, 401);
    const config = await call(`http://127.0.0.1:${service.httpPort}/api/v2/config/`, basic('admin', adminPassword));
    assert.equal(config.status, 200);
    assert.equal(config.body.license_info.license_type, 'open');
    assert.equal(typeof config.body.version, 'string');
    assert.equal(typeof config.body.time_zone, 'string');
  });

  it('created the Default organization at first start', async () => {
    const res = await call(`http://127.0.0.1:${service.httpPort}/api/v2/organizations/Default/`, basic('admin', adminPassword));
    assert.equal(res.status, 200);
    assert.equal(res.body.policy_enforcement, 'none');
  });

  it('prints no password on the next start and keeps the data', { skip: serverMode() && 'covered in embedded mode' }, async () => {
    await service.close();
    lines = [];
    service = await startService(await loadEnvConfig(values), (l) => lines.push(l));
    assert.doesNotMatch(lines.join('\n'), /password/);
    const me = await call(`http://127.0.0.1:${service.httpPort}/api/v2/me/`, basic('admin', adminPassword));
    assert.equal(me.status, 200);
  });
});

describe('service options', () => {
  it('refuses requests whose Host is not in SVC_ALLOWED_HOSTS', async () => {
    const { values } = await serviceEnv({ SVC_ALLOWED_HOSTS: 'drover.example,.corp.example', SVC_ADMIN_PASSWORD: 'pw' });
    const service = await startService(await loadEnvConfig(values), () => undefined);
    try {
      const url = `http://127.0.0.1:${service.httpPort}/api/v2/ping/`;
      assert.equal((await call(url, { host: 'evil.example' })).status, 400);
      assert.match((await call(url, { host: 'evil.example' })).body.detail, /host/i);
      assert.equal((await call(url, { host: 'drover.example' })).status, 200);
      assert.equal((await call(url, { host: 'a.corp.example:8013' })).status, 200);
      assert.equal((await call(url, { host: 'corp.example' })).status, 200);
      assert.equal((await call(url, { host: 'xcorp.example' })).status, 400);
    } finally {
      await service.close();
    }
  });

  it('serves the certificate given by SVC_TLS_CERT and SVC_TLS_KEY', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'drover-tls-'));
    const pems = await generate([{ name: 'commonName', value: 'given.example' }], { keySize: 2048 });
    await writeFile(path.join(dir, 'c.crt'), pems.cert);
    await writeFile(path.join(dir, 'c.key'), pems.private);
    const { values, dataDir } = await serviceEnv({ SVC_TLS_CERT: path.join(dir, 'c.crt'), SVC_TLS_KEY: path.join(dir, 'c.key'), SVC_ADMIN_PASSWORD: 'pw' });
    const service = await startService(await loadEnvConfig(values), () => undefined);
    try {
      const res = await call(`https://127.0.0.1:${service.httpsPort}/api/v2/ping/`);
      assert.equal(res.status, 200);
      assert.equal(res.peerSubject, 'given.example');
      assert.equal(existsSync(path.join(dataDir, 'tls', 'selfsigned.crt')), false);
    } finally {
      await service.close();
    }
  });
});
