// Workflow job templates launched by webhooks, and system job templates as workflow nodes.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { access, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestApp, newOrg, newUser, type TestApp, type User } from './helpers/app.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { firstProjectUpdate, waitForRun } from './helpers/jobs.ts';
import { pushHeaders, pushPayload } from './helpers/webhook-deliveries.ts';
import { finished, jobNodes, launchWorkflow, makeWorkflow } from './helpers/workflows.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const SHOW = `- hosts: all
  gather_facts: false
  tasks:
    - debug:
        msg: "event=[{{ awx_webhook_event_type }}] note=[{{ awx_webhook_payload.note | default('none') }}]"
`;

describe('workflow webhooks', () => {
  let t: TestApp;
  let repo: GitRepository;
  let org: number;
  let member: User;
  let otherOrgAdmin: User;
  let orgAdmin: User;

  const count = async (table: string, where = 'true') => (await t.db.query<AnyRow>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`))[0].n as number;
  const keyOf = async (id: number) => (await t.get(`/api/v2/workflow_job_templates/${id}/webhook_key/`)).body.webhook_key as string;
  const deliver = (id: number, service: string, body: string, headers: Record<string, string>) =>
    t.request('POST', `/api/v2/workflow_job_templates/${id}/${service}/`, { as: null, payload: body, headers });
  const hooked = async (service: string) => {
    const res = await t.post('/api/v2/workflow_job_templates/', { name: `hooked-${randomUUID()}`, organization: org, webhook_service: service, extra_vars: 'own: mine' });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };

  before(async () => {
    t = await createTestApp();
    org = (await newOrg(t)).id;
    member = await newUser(t, { member: [org] });
    orgAdmin = await newUser(t, { admin: [org] });
    otherOrgAdmin = await newUser(t, { admin: [(await newOrg(t)).id] });
  });
  after(async () => {
    await t.close();
    await repo?.remove();
  });

  it('keeps a key with the service, shown and rotated at webhook_key/ by the template admins only', async () => {
    const wf = await hooked('github');
    assert.equal(wf.related.webhook_key, `/api/v2/workflow_job_templates/${wf.id}/webhook_key/`);
    assert.equal(wf.related.webhook_receiver, `/api/v2/workflow_job_templates/${wf.id}/github/`);
    assert.equal(wf.webhook_key, undefined);
    const key = await keyOf(wf.id);
    assert.match(key, /^[A-Za-z0-9]{50}$/);
    const [stored] = await t.db.query<AnyRow>('SELECT webhook_key FROM workflow_job_templates WHERE id = $1', [wf.id]);
    assert.ok(stored.webhook_key.startsWith('$encrypted$'), 'encrypted at rest');
    assert.ok(!(await t.get(`/api/v2/workflow_job_templates/${wf.id}/`)).text.includes(key));

    assert.equal((await t.get(`/api/v2/workflow_job_templates/${wf.id}/webhook_key/`, { as: orgAdmin })).body.webhook_key, key);
    for (const who of [member, otherOrgAdmin]) {
      assert.equal((await t.get(`/api/v2/workflow_job_templates/${wf.id}/webhook_key/`, { as: who })).status, 403);
      assert.equal((await t.post(`/api/v2/workflow_job_templates/${wf.id}/webhook_key/`, {}, { as: who })).status, 403);
    }
    assert.equal(await keyOf(wf.id), key, 'refused rotations change nothing');

    const rotated = await t.post(`/api/v2/workflow_job_templates/${wf.id}/webhook_key/`, {}, { as: orgAdmin });
    assert.equal(rotated.status, 201, rotated.text);
    assert.match(rotated.body.webhook_key, /^[A-Za-z0-9]{50}$/);
    assert.notEqual(rotated.body.webhook_key, key);
    assert.equal(await keyOf(wf.id), rotated.body.webhook_key);

    const cleared = await t.patch(`/api/v2/workflow_job_templates/${wf.id}/`, { webhook_service: '' });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(cleared.body.related.webhook_receiver, '');
    assert.equal(await keyOf(wf.id), '');
  });

  for (const service of ['github', 'gitlab'] as const) {
    it(`a signed ${service} delivery launches one workflow job with the webhook's fields and variables`, async () => {
      const wf = await hooked(service);
      const key = await keyOf(wf.id);
      const sha = randomUUID().replace(/-/g, '');
      const body = JSON.stringify(pushPayload(service, sha, { note: '{{ lookup("pipe", "id") }}' }));
      const guid = randomUUID();
      const res = await deliver(wf.id, service, body, pushHeaders(service, key, body, guid));
      assert.equal(res.status, 202, res.text);
      assert.equal(res.body.message, 'Job queued.');
      const job = (await t.get(`/api/v2/workflow_jobs/${res.body.job}/`)).body;
      assert.equal(job.workflow_job_template, wf.id);
      assert.equal(job.launch_type, 'webhook');
      assert.equal(job.webhook_service, service);
      assert.equal(job.webhook_guid, guid);
      assert.equal(job.webhook_credential, null);
      const vars = JSON.parse(job.extra_vars);
      assert.equal(vars.own, 'mine');
      assert.equal(vars.awx_webhook_event_type, service === 'github' ? 'push' : 'Push Hook');
      assert.equal(vars.tower_webhook_event_guid, guid);
      assert.equal(vars.awx_webhook_event_ref, sha);
      assert.equal(vars.awx_webhook_payload.note, '{{ lookup("pipe", "id") }}');
      assert.equal((await finished(t, res.body.job)).status, 'successful');
      assert.equal(await count('unified_jobs', `workflow_job_template_id = ${wf.id}`), 1);
      const replay = await deliver(wf.id, service, body, pushHeaders(service, key, body, guid));
      assert.deepEqual([replay.status, replay.body.job], [202, res.body.job]);
      assert.equal(await count('unified_jobs', `workflow_job_template_id = ${wf.id}`), 1, 'a replay launches nothing');
    });
  }

  it("a job node runs its playbook with the delivery's variables, whose templates stay text", async () => {
    repo = await makeRepository({ 'show.yml': SHOW });
    const project = (await t.post('/api/v2/projects/', { name: 'Plays', organization: org, scm_type: 'git', scm_url: `file://${repo.bare}` })).body.id;
    await firstProjectUpdate(t, project);
    const inventory = (await t.post('/api/v2/inventories/', { name: 'Local', organization: org, variables: 'ansible_connection: local\nansible_python_interpreter: /usr/bin/python3' })).body.id;
    await t.post('/api/v2/hosts/', { name: 'h1', inventory });
    const jt = (await t.post('/api/v2/job_templates/', { name: 'show', project, inventory, playbook: 'show.yml' })).body.id;
    const wf = await makeWorkflow(t, org, `hooked-play-${randomUUID()}`, { play: { template: jt } }, [], { webhook_service: 'github' });
    const markers = await mkdtemp(path.join(tmpdir(), 'workflow-webhook-'));
    const marker = path.join(markers, 'payload');
    // Runs see the markers directory (read-write), so a command that ran would leave its marker.
    assert.equal((await t.patch('/api/v2/settings/jobs/', { AWX_ISOLATION_SHOW_PATHS: [`${markers}:${markers}:rw`] })).status, 200);
    const note = `{{ lookup('pipe', 'touch ${marker}') }}`;
    const body = JSON.stringify(pushPayload('github', 'c'.repeat(40), { note }));
    const res = await deliver(wf.id, 'github', body, pushHeaders('github', await keyOf(wf.id), body, randomUUID()));
    assert.equal(res.status, 202, res.text);
    const done = await waitForRun(t, `/api/v2/workflow_jobs/${res.body.job}/`, 120_000);
    assert.equal(done.status, 'successful', done.job_explanation);
    const job = (await jobNodes(t, res.body.job)).play.job;
    const stdout = (await t.get(`/api/v2/jobs/${job}/stdout/?format=txt`)).text;
    assert.ok(stdout.includes(`event=[push] note=[${note}]`), stdout);
    assert.equal(await access(marker).then(() => true, () => false), false, 'the lookup ran');
  });

  it('refuses a wrong signature, a wrong token and another service, launching nothing', async () => {
    const wf = await hooked('github');
    const key = await keyOf(wf.id);
    const body = JSON.stringify(pushPayload('github', 'abc'));
    assert.equal((await deliver(wf.id, 'github', body, pushHeaders('github', `${key}x`, body, randomUUID()))).status, 403);
    const tampered = pushHeaders('github', key, body, randomUUID());
    assert.equal((await deliver(wf.id, 'github', `${body} `, tampered)).status, 403);
    assert.equal((await deliver(wf.id, 'gitlab', body, pushHeaders('gitlab', key, body, randomUUID()))).status, 404);
    assert.equal(await count('unified_jobs', `workflow_job_template_id = ${wf.id}`), 0);
    assert.equal(await count('webhook_deliveries', `template_table = 'workflow_job_templates' AND template_id = ${wf.id}`), 0);
  });
});

describe('system job templates as workflow nodes', () => {
  let t: TestApp;
  let org: number;
  let cleanupJobs: number;

  before(async () => {
    t = await createTestApp();
    org = (await newOrg(t)).id;
    const templates = (await t.get('/api/v2/system_job_templates/?job_type=cleanup_jobs')).body.results;
    cleanupJobs = templates[0].id;
  });
  after(() => t.close());

  it('a cleanup_jobs node runs its system job with the node extra_data to successful', async () => {
    const [old] = await t.db.query<AnyRow>(
      "INSERT INTO unified_jobs (kind, name, status, launch_type, created, finished) VALUES ('job', 'old', 'successful', 'manual', now() - interval '200 days', now() - interval '200 days') RETURNING id");
    const [recent] = await t.db.query<AnyRow>("INSERT INTO unified_jobs (kind, name, status, launch_type, created, finished) VALUES ('job', 'recent', 'successful', 'manual', now() - interval '10 days', now() - interval '10 days') RETURNING id");
    const wf = await makeWorkflow(t, org, 'cleanup', { clean: { template: cleanupJobs, extra: { days: 30 } } }, [], { extra_vars: 'unrelated: 1' });
    const node = (await t.get(`/api/v2/workflow_job_template_nodes/${wf.nodes.clean}/`)).body;
    assert.equal(node.summary_fields.unified_job_template.unified_job_type, 'system_job');
    const wj = await launchWorkflow(t, wf.id);
    const done = await finished(t, wj);
    assert.equal(done.status, 'successful', done.job_explanation);
    const run = (await jobNodes(t, wj)).clean.job;
    const systemJob = await waitForRun(t, `/api/v2/system_jobs/${run}/`);
    assert.equal(systemJob.status, 'successful', JSON.stringify(systemJob));
    assert.equal(systemJob.launch_type, 'workflow');
    assert.equal(systemJob.job_type, 'cleanup_jobs');
    assert.deepEqual(JSON.parse(systemJob.extra_vars), { days: 30 });
    assert.equal((await t.get(`/api/v2/jobs/${old.id}/`)).status, 404);
    assert.equal((await t.get(`/api/v2/jobs/${recent.id}/`)).status, 200);
  });

  it('refuses options a system job does not take', async () => {
    const wf = await makeWorkflow(t, org, 'bad options', {}, []);
    for (const extra_data of [{ days: -1 }, { rm: '-rf' }]) {
      const res = await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: wf.id, unified_job_template: cleanupJobs, extra_data });
      assert.equal(res.status, 400, res.text);
      assert.ok(Array.isArray(res.body.extra_data), res.text);
    }
    const limited = await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: wf.id, unified_job_template: cleanupJobs, limit: 'all' });
    assert.equal(limited.status, 400, limited.text);
    assert.equal(await t.db.query<AnyRow>('SELECT 1 FROM workflow_job_template_nodes WHERE workflow_job_template_id = $1', [wf.id]).then((r) => r.length), 0);
  });

  it('only superusers put a system job template in a node', async () => {
    const admin = await newUser(t, { admin: [org] });
    const wf = (await t.post('/api/v2/workflow_job_templates/', { name: 'admin-owned', organization: org }, { as: admin })).body;
    const refused = await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: wf.id, unified_job_template: cleanupJobs, extra_data: { days: 1 } }, { as: admin });
    assert.equal(refused.status, 403, refused.text);
    const plain = await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: wf.id }, { as: admin });
    assert.equal(plain.status, 201, plain.text);
    const changed = await t.patch(`/api/v2/workflow_job_template_nodes/${plain.body.id}/`, { unified_job_template: cleanupJobs }, { as: admin });
    assert.equal(changed.status, 403, changed.text);
    const child = await t.post(`/api/v2/workflow_job_template_nodes/${plain.body.id}/success_nodes/`, { unified_job_template: cleanupJobs }, { as: admin });
    assert.equal(child.status, 403, child.text);
    const [{ n }] = await t.db.query<AnyRow>('SELECT count(*)::int AS n FROM workflow_job_template_nodes WHERE unified_job_template_id = $1 AND workflow_job_template_id = $2', [cleanupJobs, wf.id]);
    assert.equal(n, 0);
  });
});
