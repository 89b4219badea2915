import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadEnvConfig } from '../src/config/env.ts';
import { startService, type RunningService } from '../src/server/start.ts';
import { eventually } from './helpers/jobs.ts';
import { standaloneValues } from './helpers/standalone.ts';

// The service's request log would drown the test report.
process.env.SVC_LOG_LEVEL = 'warn';
const ADMIN_PASSWORD = 'demo-admin-pw';
/** Environment for a service with a data directory (and, in server mode, a database) of its own. */
async function serviceValues(extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const { values } = await standaloneValues('demo', {
    NGINX_HTTP_PORT: '0', NGINX_HTTPS_PORT: '0', SVC_LISTEN_ADDRESS: '127.0.0.1', SVC_ADMIN_PASSWORD: ADMIN_PASSWORD, SVC_NODE_NAME: 'demo-node', ...extra,
  });
  return values;
}

interface Started {
  service: RunningService;
  lines: string[];
}

async function start(values: Record<string, string>): Promise<Started> {
  const lines: string[] = [];
  const service = await startService(await loadEnvConfig(values), (l) => lines.push(l));
  return { service, lines };
}

/** An API call over real HTTP as the admin. */
async function api(s: RunningService, method: string, url: string, body?: unknown) {
  const res = await fetch(`http://127.0.0.1:${s.httpPort}${url}`, {
    method,
    headers: {
      authorization: `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // plain text (stdout)
  }
  return { status: res.status, body: parsed, text };
}

/** Polls a run until it reaches a final status and answers its body. */
function waitFor(s: RunningService, url: string, timeoutMs = 90_000): Promise<any> {
  return eventually(async () => {
    const res = await api(s, 'GET', url);
    assert.equal(res.status, 200, res.text);
    return ['successful', 'failed', 'error', 'canceled'].includes(res.body.status) && res.body;
  }, timeoutMs, `${url} to finish`);
}

const names = async (s: RunningService, list: string) => (await api(s, 'GET', `/api/v2/${list}/?order_by=id`)).body.results.map((r: any) => r.name);

describe('demo content at first start', () => {
  it('creates the demo project, inventory, credential and template, and the template runs Hello World', async () => {
    const values = await serviceValues();
    const { service, lines } = await start(values);
    try {
      assert.ok(lines.some((l) => /Created the demo content/.test(l)));
      const org = (await api(service, 'GET', '/api/v2/organizations/Default/')).body;
      const project = (await api(service, 'GET', '/api/v2/projects/?name=Demo+Project')).body.results[0];
      assert.equal(project.scm_type, 'git');
      assert.equal(project.organization, org.id);
      assert.equal(project.scm_url, `file://${path.join(values.SVC_DATA_DIR, 'demo', 'ansible-tower-samples.git')}`);
      assert.ok(existsSync(path.join(values.SVC_DATA_DIR, 'demo', 'ansible-tower-samples.git', 'HEAD')), 'a git repository in the data directory');

      const inventory = (await api(service, 'GET', '/api/v2/inventories/?name=Demo+Inventory')).body.results[0];
      assert.equal(inventory.organization, org.id);
      const hosts = (await api(service, 'GET', `/api/v2/inventories/${inventory.id}/hosts/`)).body.results;
      assert.deepEqual(hosts.map((h: any) => h.name), ['localhost']);
      assert.match(hosts[0].variables, /ansible_connection: local/);
      assert.match(hosts[0].variables, /ansible_python_interpreter: '\{\{ ansible_playbook_python \}\}'/);

      const credential = (await api(service, 'GET', '/api/v2/credentials/?name=Demo+Credential')).body.results[0];
      assert.equal(credential.kind, 'ssh');
      assert.equal(credential.inputs.username, 'admin');
      assert.equal(credential.organization, null);

      const template = (await api(service, 'GET', '/api/v2/job_templates/?name=Demo+Job+Template')).body.results[0];
      assert.equal(template.playbook, 'hello_world.yml');
      assert.equal(template.project, project.id);
      assert.equal(template.inventory, inventory.id);
      const attached = (await api(service, 'GET', `/api/v2/job_templates/${template.id}/credentials/`)).body.results;
      assert.deepEqual(attached.map((c: any) => c.id), [credential.id]);

      // The project's first sync is an ordinary project update.
      const updates = (await api(service, 'GET', `/api/v2/projects/${project.id}/project_updates/`)).body.results;
      assert.equal(updates.length, 1);
      const update = await waitFor(service, updates[0].url);
      assert.equal(update.status, 'successful', update.job_explanation);
      const playbooks = (await api(service, 'GET', `/api/v2/projects/${project.id}/playbooks/`)).body;
      assert.deepEqual(playbooks, ['hello_world.yml']);

      const launched = await api(service, 'POST', `/api/v2/job_templates/${template.id}/launch/`, {});
      assert.equal(launched.status, 201, launched.text);
      const job = await waitFor(service, `/api/v2/jobs/${launched.body.job}/`);
      assert.equal(job.status, 'successful', job.job_explanation);
      const stdout = await api(service, 'GET', `/api/v2/jobs/${job.id}/stdout/?format=txt`);
      assert.match(stdout.text, /"msg": "Hello World!"/);
      assert.match(stdout.text, /localhost\s+: ok=1/);
    } finally {
      await service.close();
    }

    // A second start adds nothing.
    const second = await start(values);
    try {
      assert.ok(!second.lines.some((l) => /demo content/.test(l)));
      assert.deepEqual(await names(second.service, 'projects'), ['Demo Project']);
      assert.deepEqual(await names(second.service, 'inventories'), ['Demo Inventory']);
      assert.deepEqual(await names(second.service, 'credentials'), ['Ansible Galaxy', 'Demo Credential']);
      assert.deepEqual(await names(second.service, 'job_templates'), ['Demo Job Template']);
      // Deleted demo objects stay deleted.
      for (const list of ['job_templates', 'projects', 'inventories', 'credentials']) {
        // The managed Galaxy credential is not demo content (and cannot be deleted).
        const [id] = (await api(second.service, 'GET', `/api/v2/${list}/`)).body.results.filter((r: any) => !r.managed).map((r: any) => r.id);
        const deleted = await api(second.service, 'DELETE', `/api/v2/${list}/${id}/`);
        assert.ok([202, 204].includes(deleted.status), `${list}: ${deleted.status} ${deleted.text}`);
      }
    } finally {
      await second.service.close();
    }

    const third = await start(values);
    try {
      for (const list of ['projects', 'inventories', 'credentials', 'job_templates']) {
        await eventuallyEmpty(third.service, list);
      }
    } finally {
      await third.service.close();
    }
  });

  it('SVC_CREATE_DEMO_DATA=false creates none, and a database already in use never gets it', async () => {
    const values = await serviceValues({ SVC_CREATE_DEMO_DATA: 'false' });
    const first = await start(values);
    try {
      assert.deepEqual(await names(first.service, 'projects'), []);
      assert.deepEqual(await names(first.service, 'job_templates'), []);
      const org = (await api(first.service, 'GET', '/api/v2/organizations/Default/')).body;
      assert.equal((await api(first.service, 'POST', '/api/v2/inventories/', { name: 'Mine', organization: org.id })).status, 201);
    } finally {
      await first.service.close();
    }
    const second = await start({ ...values, SVC_CREATE_DEMO_DATA: 'true' });
    try {
      assert.ok(!second.lines.some((l) => /demo content/.test(l)));
      assert.deepEqual(await names(second.service, 'inventories'), ['Mine']);
      assert.deepEqual(await names(second.service, 'projects'), []);
      assert.equal(existsSync(path.join(values.SVC_DATA_DIR, 'demo')), false);
    } finally {
      await second.service.close();
    }
  });

  it('rejects a value of SVC_CREATE_DEMO_DATA that is not a boolean', async () => {
    await assert.rejects(loadEnvConfig({ SVC_DATA_DIR: path.join(tmpdir(), 'drover-demo-not-made'), SVC_CREATE_DEMO_DATA: 'maybe' }), (err: Error) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /SVC_CREATE_DEMO_DATA must be true or false, got "maybe"/);
      return true;
    });
  });
});

/** Deletions of projects and inventories may finish in the background (AWX's 202). */
/** Waits until `list` holds nothing but the managed Galaxy credential (not demo content). */
async function eventuallyEmpty(s: RunningService, list: string): Promise<void> {
  let found: string[] = [];
  const demoNames = async () => (await names(s, list)).filter((name: string) => !(list === 'credentials' && name === 'Ansible Galaxy'));
  await eventually(async () => !(found = await demoNames()).length, 30_000, `${list} to stay empty`).catch((err) => {
    assert.deepEqual(found, [], `${list} came back`);
    throw err;
  });
}
