// Two nodes on one PostgreSQL, each with its own data directory: a job placed on the node that
// never synced its project runs the revision the project records, fetched by that node, and that
// node answers playbooks/ from the database (docs/projects.md#several-nodes).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadEnvConfig } from '../src/config/env.ts';
import { loadSettings } from '../src/config/settings/store.ts';
import { ServerDatabase } from '../src/db/server.ts';
import { buildApp } from '../src/server/app.ts';
import { composeServices, RESOURCES, settingRegistry } from '../src/composition/root.ts';
import { VERSION } from '../src/version.ts';
import { basicAuth, createTestApp, ADMIN, newInventory, newOrg, type TestApp } from './helpers/app.ts';
import { serverConnection, serverMode } from './helpers/database.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { firstProjectUpdate, eventually, waitForRun } from './helpers/jobs.ts';

const play = (message: string) => `- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: msg="content={{ '${message}' }}"\n`;

describe('a second node on the same database', { skip: !serverMode() && 'needs a PostgreSQL server' }, () => {
  let t: TestApp;
  let repo: GitRepository;
  let second: { app: FastifyInstance; db: ServerDatabase; projectsRoot: string };
  const onSecond = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
    const res = await second.app.inject({ method, url, headers: { authorization: basicAuth(ADMIN), 'content-type': 'application/json' }, payload: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined, text: res.body };
  };

  before(async () => {
    t = await createTestApp();
    repo = await makeRepository({ 'site.yml': play('first') });
    const [{ name }] = await t.db.query<{ name: string }>('SELECT current_database() AS name');
    const dataDir = await mkdtemp(path.join(tmpdir(), 'drover-second-node-'));
    const env = await loadEnvConfig({
      SVC_DATA_DIR: dataDir, SVC_ADMIN_PASSWORD: ADMIN.password, SVC_NODE_NAME: 'second-node', SESSION_COOKIE_SECURE: 'false', CSRF_COOKIE_SECURE: 'false',
      POSTGRES_HOST: process.env.POSTGRES_HOST!, POSTGRES_PASSWORD: process.env.POSTGRES_PASSWORD ?? 'unused',
      SVC_SECRET_KEY: 'test-secret-key', SVC_BROADCAST_WEBSOCKET_SECRET: 'test-broadcast-secret', SVC_CSRF_TRUSTED_ORIGINS: 'http://localhost',
    });
    env.localSourceDirs.push(tmpdir());
    const db = new ServerDatabase(serverConnection(name));
    const settings = await loadSettings(db, env, settingRegistry(), RESOURCES);
    const [{ uuid }] = await db.query<{ uuid: string }>('SELECT uuid FROM installation');
    const services = composeServices({ db, settings, env, version: VERSION, installUuid: uuid }, {});
    second = { app: await buildApp(services, {}), db, projectsRoot: env.projectsRoot };
  });
  after(async () => {
    await second?.app.close();
    await second?.db.close();
    await t?.close();
    await repo?.remove();
  });

  it('runs the recorded revision on the node that never synced the project, and answers alike', async () => {
    const org = (await newOrg(t)).id;
    const inventory = (await newInventory(t, org, { hosts: ['here'] })).id;
    const project = await t.post('/api/v2/projects/', { name: 'Site', organization: org, scm_type: 'git', scm_url: `file://${repo.bare}` });
    assert.equal(project.status, 201, project.text);
    const update = await firstProjectUpdate(t, project.body.id);
    assert.equal(update.status, 'successful', update.job_explanation);
    assert.equal(update.execution_node, 'test-node');
    assert.deepEqual((await onSecond('GET', `/api/v2/projects/${project.body.id}/playbooks/`)).body, ['site.yml']);
    const template = await onSecond('POST', '/api/v2/job_templates/', { name: 'on-second', project: project.body.id, inventory, playbook: 'site.yml' });
    assert.equal(template.status, 201, template.text);
    // Only the second node takes runs from now on.
    const first = (await t.get('/api/v2/instances/?hostname=test-node')).body.results[0];
    await eventually(async () => (await t.get('/api/v2/instances/?hostname=second-node')).body.count === 1, 30_000, 'the second node registered');
    assert.equal((await t.patch(`/api/v2/instances/${first.id}/`, { enabled: false })).status, 200);
    const launched = await onSecond('POST', `/api/v2/job_templates/${template.body.id}/launch/`, {});
    assert.equal(launched.status, 201, launched.text);
    const job = await waitForRun(t, `/api/v2/jobs/${launched.body.id}/`, 120_000);
    assert.equal(job.status, 'successful', job.job_explanation);
    assert.equal(job.execution_node, 'second-node');
    assert.match((await t.get(`/api/v2/jobs/${job.id}/stdout/?format=txt`)).text, /content=first/);
    assert.deepEqual(await readdir(path.join(second.projectsRoot, '.__revisions', project.body.local_path)), [update.scm_revision]);
  });
});
