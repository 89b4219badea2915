import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, type TestApp } from './helpers/app.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { firstProjectUpdate, waitForRun } from './helpers/jobs.ts';

const PLAY = `- hosts: all
  gather_facts: false
  tasks:
    - name: greet
      debug: msg="hello {{ inventory_hostname }} colour={{ colour | default('none') }}"
`;
const KEY = 'callback-key-5e2a';

describe('provisioning callbacks', () => {
  let t: TestApp;
  let repo: GitRepository;
  let project: number;
  let inventory: number;
  let jt: any;

  const callback = (templateId: number, body: unknown, headers: Record<string, string> = {}) =>
    t.post(`/api/v2/job_templates/${templateId}/callback/`, body, { as: null, headers });
  const jobCount = async () => (await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM unified_jobs WHERE kind = 'job'"))[0].n;

  before(async () => {
    t = await createTestApp();
    repo = await makeRepository({ 'site.yml': PLAY });
    const org = (await newOrg(t)).id;
    project = (await t.post('/api/v2/projects/', { name: 'Plays', organization: org, scm_type: 'git', scm_url: `file://${repo.bare}` })).body.id;
    await firstProjectUpdate(t, project);
    inventory = (await t.post('/api/v2/inventories/', { name: 'Local', organization: org, variables: 'ansible_connection: local\nansible_python_interpreter: /usr/bin/python3' })).body.id;
    await t.post('/api/v2/hosts/', { name: 'other', inventory });
    await t.post('/api/v2/hosts/', { name: 'web1', inventory, variables: 'ansible_host: 127.0.0.1' });
    jt = (await t.post('/api/v2/job_templates/', { name: 'Provision', project, inventory, playbook: 'site.yml', host_config_key: KEY })).body;
  });
  after(async () => {
    await t.close();
    await repo.remove();
  });

  it('a wrong or missing key is a 403 and creates nothing', async () => {
    const before = await jobCount();
    assert.equal((await callback(jt.id, { host_config_key: 'wrong' })).status, 403);
    assert.equal((await callback(jt.id, {})).status, 403);
    assert.equal((await callback(jt.id, { host_config_key: KEY.slice(0, -1) })).status, 403);
    const keyless = (await t.post('/api/v2/job_templates/', { name: 'Keyless', project, inventory, playbook: 'site.yml' })).body;
    assert.equal((await callback(keyless.id, { host_config_key: '' })).status, 403);
    assert.equal((await callback(999999, { host_config_key: KEY })).status, 404);
    assert.equal(await jobCount(), before);
  });

  it('a caller that matches no host is a 400', async () => {
    const res = await callback(jt.id, { host_config_key: KEY }, { 'x-forwarded-for': '192.0.2.77' });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { msg: 'No matching host could be found!' });
    const twin = (await t.post('/api/v2/hosts/', { name: 'web1-twin', inventory, variables: 'ansible_host: 127.0.0.1' })).body.id;
    const ambiguous = await callback(jt.id, { host_config_key: KEY });
    assert.equal(ambiguous.status, 400);
    assert.deepEqual(ambiguous.body, { msg: 'Multiple hosts matched the request!' });
    assert.equal((await t.delete(`/api/v2/hosts/${twin}/`)).status, 204);
  });

  it('the right key from the host launches the template limited to it; a second callback while it is pending is refused', async () => {
    const res = await callback(jt.id, { host_config_key: KEY });
    assert.equal(res.status, 201, res.text);
    const url = res.headers.location as string;
    assert.match(url, /^\/api\/v2\/jobs\/\d+\/$/);
    const again = await t.request('POST', `/api/v2/job_templates/${jt.id}/callback/`, {
      as: null, payload: `host_config_key=${KEY}`, headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(again.status, 400);
    assert.deepEqual(again.body, { msg: 'Host callback job already pending.' });
    const job = await waitForRun(t, url, 120_000);
    assert.equal(job.status, 'successful', job.job_explanation);
    assert.equal(job.launch_type, 'callback');
    assert.equal(job.limit, 'web1');
    assert.equal(job.job_template, jt.id);
    const hosts = (await t.get(`${url}job_host_summaries/`)).body.results.map((r: any) => r.host_name);
    assert.deepEqual(hosts, ['web1']);

    const form = await t.request('POST', `/api/v2/job_templates/${jt.id}/callback/`, {
      as: null, payload: `host_config_key=${KEY}`, headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.status, 201, form.text);
    await waitForRun(t, form.headers.location as string, 120_000);

    // A browser session does not bring the CSRF check to callbacks: the key is what counts.
    const session = await t.login(undefined, { https: true });
    const withSession = await session.post(`/api/v2/job_templates/${jt.id}/callback/`, { host_config_key: KEY }, { csrf: false, origin: false });
    assert.equal(withSession.status, 201, withSession.text);
    await waitForRun(t, withSession.headers.location as string, 120_000);
    assert.equal((await session.post(`/api/v2/job_templates/${jt.id}/callback/`, { host_config_key: 'nope' }, { csrf: false, origin: false })).status, 403);
  });

  it('a template that needs input at launch refuses callbacks; extra vars count with ask_variables_on_launch', async () => {
    assert.equal((await t.patch(`/api/v2/job_templates/${jt.id}/`, { ask_variables_on_launch: true })).status, 200);
    const refused = await callback(jt.id, { host_config_key: KEY });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body, { msg: 'Cannot start automatically, user input required!' });
    const res = await callback(jt.id, { host_config_key: KEY, extra_vars: { colour: 'green', ansible_user: 'root' } });
    assert.equal(res.status, 201, res.text);
    const job = await waitForRun(t, res.headers.location as string, 120_000);
    assert.match(job.extra_vars, /"colour": "green"/);
    assert.ok(!job.extra_vars.includes('ansible_user'), 'ansible_* variables are dropped');
    assert.match((await t.get(`${job.url}stdout/?format=txt`)).text, /hello web1 colour=green/);
    await t.patch(`/api/v2/job_templates/${jt.id}/`, { ask_variables_on_launch: false });
  });

  it('GET shows the key and the hosts matching the caller to users who see the template, 401 to anyone else', async () => {
    const res = await t.get(`/api/v2/job_templates/${jt.id}/callback/`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { host_config_key: KEY, matching_hosts: ['web1'] });
    assert.equal((await t.get(`/api/v2/job_templates/${jt.id}/callback/`, { as: null })).status, 401);
    const stranger = await t.createUser('stranger');
    assert.equal((await t.get(`/api/v2/job_templates/${jt.id}/callback/`, { as: stranger })).status, 403);
  });
});
