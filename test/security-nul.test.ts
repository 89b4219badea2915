// NUL characters: PostgreSQL text and jsonb cannot hold them. A request carrying one anywhere
// answers 400 and stores nothing; a run printing one keeps all of its output (NUL becomes U+FFFD).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { createTestApp, basicAuth, ADMIN, newOrg, type TestApp } from './helpers/app.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { firstProjectUpdate, waitForRun } from './helpers/jobs.ts';
import { OutputWriter } from '../src/dispatcher/output.ts';
import { errorHandler } from '../src/server/error-handler.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

// YAML's "\0" is a NUL: in a task name (printed raw in the task banner) and in a debug message
// (in the event's data); printf prints one in a command's output.
const NUL_PLAY = `- hosts: all
  gather_facts: false
  tasks:
    - name: "nul \\0 in a task name"
      debug:
        msg: "a\\0b"
    - name: command output
      command: printf 'c\\0d'
      register: printed
    - name: after
      debug:
        msg: "still here {{ printed.stdout | length }}"
`;

describe('NUL characters', () => {
  let t: TestApp;
  let repo: GitRepository;
  let orgId: number;
  let projectId: number;
  let inventoryId: number;
  let templateId: number;

  const counts = async () =>
    (await t.db.query<AnyRow>(`SELECT (SELECT count(*)::int FROM organizations) AS orgs, (SELECT count(*)::int FROM unified_jobs WHERE kind = 'job') AS jobs,
      (SELECT count(*)::int FROM inventories) AS inventories, (SELECT count(*)::int FROM users) AS users`))[0];

  before(async () => {
    t = await createTestApp();
    repo = await makeRepository({ 'nul.yml': NUL_PLAY });
    orgId = (await newOrg(t, { name: 'Ops' })).id;
    projectId = (await t.post('/api/v2/projects/', { name: 'Plays', organization: orgId, scm_type: 'git', scm_url: `file://${repo.bare}` })).body.id;
    assert.equal((await firstProjectUpdate(t, projectId)).status, 'successful');
    inventoryId = (await t.post('/api/v2/inventories/', { name: 'Local', organization: orgId, variables: 'ansible_connection: local\nansible_python_interpreter: /usr/bin/python3' })).body.id;
    assert.equal((await t.post('/api/v2/hosts/', { name: 'h1', inventory: inventoryId })).status, 201);
    const jt = await t.post('/api/v2/job_templates/', { name: 'nul', project: projectId, inventory: inventoryId, playbook: 'nul.yml', ask_variables_on_launch: true });
    assert.equal(jt.status, 201, jt.text);
    templateId = jt.body.id;
  });
  after(async () => {
    await t.close();
    await repo.remove();
  });

  /** Sends the request and checks it answers 400 with {detail} or field errors, storing nothing. */
  async function refused(method: string, url: string, options: Parameters<TestApp['request']>[2] = {}, field?: string) {
    const before = await counts();
    const res = await t.request(method, url, options);
    assert.equal(res.status, 400, `${method} ${url}: ${res.status} ${res.text}`);
    if (field) assert.deepEqual(res.body, { [field]: ['Null characters are not allowed.'] });
    else assert.match(res.body.detail, /Null characters are not allowed/);
    assert.deepEqual(await counts(), before, 'nothing stored');
    return res;
  }

  describe('in a request', () => {
    it('in a query value, for every lookup and search', async () => {
      for (const query of ['name=a%00b', 'name__icontains=%00', 'name__regex=%00', 'name__in=a,%00', 'search=x%00', 'organization__name=%00', 'order_by=name%00', 'page=1%00']) {
        await refused('GET', `/api/v2/teams/?${query}`);
      }
    });

    it('in a query key', async () => {
      await refused('GET', '/api/v2/teams/?na%00me=x');
      await refused('GET', '/api/v2/teams/?organization__na%00me=x');
    });

    it('in a path segment or a named URL, also in the middle of a path', async () => {
      await refused('GET', '/api/v2/organizations/Op%00s/');
      await refused('GET', '/api/v2/teams/x%00++Ops/users/');
      await refused('GET', `/api/v2/organizations/${orgId}%00/`);
      await refused('PATCH', '/api/v2/organizations/Op%00s/', { body: { description: 'x' } });
      await refused('GET', '/api/v2/no%00such/');
    });

    it('in a JSON string (\\u0000), as a field error', async () => {
      await refused('POST', '/api/v2/organizations/', { body: { name: 'a\u0000b' } }, 'name');
      await refused('PATCH', `/api/v2/organizations/${orgId}/`, { body: { description: '\u0000' } }, 'description');
      await refused('POST', '/api/v2/inventories/', { body: { name: 'inv', organization: orgId, variables: { a: ['x\u0000'] } } }, 'variables');
      await refused('POST', '/api/v2/users/', { body: { username: 'nul', password: 'pass\u0000word' } }, 'password');
      await refused('POST', `/api/v2/job_templates/${templateId}/launch/`, { body: { extra_vars: { greeting: 'hi\u0000' } } }, 'extra_vars');
      await refused('PATCH', '/api/v2/settings/ui/', { body: { CUSTOM_LOGIN_INFO: 'x\u0000' } }, 'CUSTOM_LOGIN_INFO');
      assert.equal((await t.get(`/api/v2/organizations/${orgId}/`)).body.description, '');
    });

    it('in a JSON key', async () => {
      await refused('POST', '/api/v2/organizations/', { body: { 'na\u0000me': 'x', name: 'y' } });
      await refused('POST', '/api/v2/inventories/', { body: { name: 'inv', organization: orgId, variables: { 'k\u0000': 1 } } }, 'variables');
    });

    it('raw in a JSON body', async () => {
      for (const payload of ['{"name": "a\u0000b"}', '{"name":\u0000"x"}', '\u0000']) {
        const res = await t.request('POST', '/api/v2/organizations/', { payload, headers: { 'content-type': 'application/json' } });
        assert.equal(res.status, 400, res.text);
        assert.equal(typeof res.body.detail, 'string');
      }
    });

    it('in a form body', async () => {
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      await refused('POST', '/api/login/', { as: null, payload: 'username=ad%00min&password=x', headers: form }, 'username');
      await refused('POST', '/api/o/token/', { as: null, payload: 'grant_type=password&username=admin&password=a%00', headers: form }, 'password');
      await refused('POST', `/api/v2/job_templates/${templateId}/callback/`, { as: null, payload: 'host_config_key=k%00', headers: form }, 'host_config_key');
    });

    it('in the Basic credentials, a token, a cookie or another header', async () => {
      await refused('GET', '/api/v2/me/', { as: null, headers: { authorization: basicAuth({ username: 'ad\u0000min', password: ADMIN.password }) } });
      await refused('GET', '/api/v2/me/', { as: null, headers: { authorization: basicAuth({ username: ADMIN.username, password: `${ADMIN.password}\u0000` }) } });
      await refused('GET', '/api/v2/me/', { as: null, headers: { authorization: 'Bearer abc\u0000' } });
      await refused('GET', '/api/v2/me/', { as: null, headers: { cookie: 'svc_sessionid=abc%00' } });
      await refused('GET', '/api/v2/ping/', { as: null, headers: { 'x-anything': 'a\u0000' } });
    });

    it('a NUL reaching the database some other way answers 400, not 500', async () => {
      const app = Fastify();
      app.setErrorHandler(errorHandler);
      app.get('/text', async () => {
        throw Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' });
      });
      app.get('/json', async () => {
        throw Object.assign(new Error('unsupported Unicode escape sequence'), { code: '22P05' });
      });
      for (const url of ['/text', '/json']) {
        const res = await app.inject({ method: 'GET', url });
        assert.equal(res.statusCode, 400);
        assert.deepEqual(res.json(), { detail: 'Null characters are not allowed.' });
      }
      await app.close();
    });

    it('requests without NUL are unaffected', async () => {
      assert.equal((await t.get('/api/v2/teams/?name=a%2500b')).status, 200);
      const res = await t.post('/api/v2/organizations/', { name: 'backslash \\u0000 zero' });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.name, 'backslash \\u0000 zero');
      assert.equal((await t.delete(`/api/v2/organizations/${res.body.id}/`)).status, 204);
    });
  });

  describe('in the output of a run', () => {
    it('a playbook printing NUL characters keeps all of its output; each NUL becomes U+FFFD', async () => {
      const launched = await t.post(`/api/v2/job_templates/${templateId}/launch/`, {});
      assert.equal(launched.status, 201, launched.text);
      const job = await waitForRun(t, `/api/v2/jobs/${launched.body.job}/`, 120_000);
      assert.equal(job.status, 'successful', job.job_explanation);
      const events = (await t.get(`/api/v2/jobs/${job.id}/job_events/?page_size=200`)).body.results;
      const named = events.find((e: any) => e.event === 'runner_on_ok' && e.task.startsWith('nul'));
      assert.equal(named.task, 'nul \uFFFD in a task name');
      assert.equal(named.event_data.res.msg, 'a\uFFFDb');
      assert.equal(named.event_data.task, 'nul \uFFFD in a task name');
      const command = events.find((e: any) => e.event === 'runner_on_ok' && e.task === 'command output');
      assert.equal(command.event_data.res.stdout, 'c\uFFFDd');
      const last = events.find((e: any) => e.event === 'runner_on_ok' && e.task === 'after');
      assert.equal(last.event_data.res.msg, 'still here 3');
      assert.ok(events.some((e: any) => e.event === 'playbook_on_stats'));
      const txt = (await t.get(`/api/v2/jobs/${job.id}/stdout/?format=txt`)).text;
      assert.match(txt, /TASK \[nul \uFFFD in a task name\]/);
      assert.match(txt, /still here 3/);
      assert.match(txt, /PLAY RECAP/);
      assert.ok(!txt.includes('\u0000'));
    });

    it('plain output lines (project and inventory updates, runner messages) keep theirs as U+FFFD', async () => {
      const [run] = await t.db.query<AnyRow>(`INSERT INTO unified_jobs (kind, name, status) VALUES ('project_update', 'nul output', 'running') RETURNING id`);
      const writer = new OutputWriter(t.db, run.id);
      await writer.write('one\u0000\ntwo \u0000 three\n');
      await writer.write('partial\u0000');
      await writer.flush(true);
      const rows = await t.db.query<AnyRow>('SELECT stdout FROM unified_job_events WHERE unified_job_id = $1 ORDER BY counter', [run.id]);
      assert.deepEqual(rows.map((r) => r.stdout), ['one\uFFFD', 'two \uFFFD three', 'partial\uFFFD']);
    });
  });
});
