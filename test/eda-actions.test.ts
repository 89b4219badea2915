import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { newOrg, newUser, type User } from './helpers/factories.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { eventually, firstProjectUpdate, waitForRun } from './helpers/jobs.ts';
import { startHttpPeer, type HttpPeer } from './helpers/notification-peers.ts';
import { makeWorkflow } from './helpers/workflows.ts';
import { sendEvent } from './helpers/eda.ts';

const SHOW = `- hosts: all
  gather_facts: false
  tasks:
    - debug:
        msg: "type=[{{ svc_eda_event_type }}] rule=[{{ svc_eda_rule_name }}] guid=[{{ svc_eda_event_guid }}] note=[{{ svc_eda_payload.note }}] extra=[{{ from_rule | default('none') }}]"
`;

describe('event rule actions', () => {
  let t: TestApp;
  let repo: GitRepository;
  let peer: HttpPeer;
  let org: number;
  let template: number;
  let workflow: number;
  let notification: number;
  let member: User;
  let auditor: User;
  let otherAdmin: User;
  let serial = 0;

  const rule = async (actions: unknown[], extra: Record<string, unknown> = {}) => {
    const path = `act-${++serial}`;
    const res = await t.post('/api/v2/event_rules/', {
      name: path, organization: org, webhook_path: path, conditions: [{ jinja2_expression: 'event.kind == "deploy"', description: 'deploys' }], actions, ...extra,
    });
    assert.equal(res.status, 201, res.text);
    return { ...res.body, key: (await t.get(`/api/v2/event_rules/${res.body.id}/webhook_key/`)).body.webhook_key as string };
  };
  const fire = async (r: { webhook_path: string; key: string }, payload: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const res = await sendEvent(t, r.webhook_path, r.key, payload, { headers });
    assert.equal(res.status, 202, res.text);
    return eventually(async () => {
      const log = (await t.get(`/api/v2/event_logs/${res.body.event_log_id}/`)).body;
      return log.status !== 'received' ? log : null;
    }, 30_000, `event ${res.body.event_log_id} evaluated`);
  };

  before(async () => {
    t = await createTestApp();
    peer = await startHttpPeer();
    assert.equal((await t.patch('/api/v2/settings/security/', { OUTBOUND_URL_ALLOWLIST: ['127.0.0.1'] })).status, 200);
    repo = await makeRepository({ 'show.yml': SHOW });
    org = (await newOrg(t)).id;
    const other = (await newOrg(t)).id;
    member = await newUser(t, { member: org });
    auditor = await newUser(t, { auditor: org });
    otherAdmin = await newUser(t, { admin: other });
    const project = (await t.post('/api/v2/projects/', { name: 'Plays', organization: org, scm_type: 'git', scm_url: `file://${repo.bare}` })).body.id;
    await firstProjectUpdate(t, project);
    const inventory = (await t.post('/api/v2/inventories/', { name: 'Local', organization: org, variables: 'ansible_connection: local\nansible_python_interpreter: /usr/bin/python3' })).body.id;
    await t.post('/api/v2/hosts/', { name: 'h1', inventory });
    const jt = await t.post('/api/v2/job_templates/', { name: 'Show', project, inventory, playbook: 'show.yml' });
    assert.equal(jt.status, 201, jt.text);
    template = jt.body.id;
    workflow = (await makeWorkflow(t, org, 'Flow', { a: { template } }, [])).id;
    notification = (await t.post('/api/v2/notification_templates/', {
      name: 'ops hook', organization: org, notification_type: 'webhook', notification_configuration: { url: `${peer.base}/eda`, headers: {} },
    })).body.id;
  });
  after(async () => {
    await t.close();
    await peer.close();
    await repo.remove();
  });

  it('launches the job template with the event as svc_eda_* variables, which Ansible does not template', async () => {
    const r = await rule([{ action_type: 'launch_job_template', target_id: template, extra_vars: { from_rule: 'yes' }, description: 'show it' }]);
    const note = "{{ lookup('pipe', 'id') }}";
    const log = await fire(r, { kind: 'deploy', note, event_id: 'deploy-1' }, { 'x-svc-event': 'release' });
    assert.equal(log.status, 'action_fired', JSON.stringify(log));
    assert.equal(log.conditions_matched, true);
    assert.deepEqual(log.condition_results, [{ expression: 'event.kind == "deploy"', description: 'deploys', matched: true }]);
    assert.equal(log.actions_triggered.length, 1);
    assert.equal(log.actions_triggered[0].ok, true);
    assert.equal(log.job_id, log.actions_triggered[0].job);
    assert.equal(log.event_type, 'release');
    assert.deepEqual(log.payload, { kind: 'deploy', note, event_id: 'deploy-1' });
    const job = await waitForRun(t, `/api/v2/jobs/${log.job_id}/`);
    assert.equal(job.status, 'successful', job.result_traceback);
    assert.equal(job.launch_type, 'webhook');
    const vars = JSON.parse(job.extra_vars);
    assert.equal(vars.svc_eda_event_guid, 'deploy-1');
    assert.equal(vars.svc_eda_rule_name, r.name);
    const stdout = (await t.get(`/api/v2/jobs/${job.id}/stdout/?format=txt`)).text;
    assert.ok(stdout.includes(`type=[release] rule=[${r.name}] guid=[deploy-1] note=[${note}] extra=[yes]`), stdout);
    const fired = (await t.get(`/api/v2/event_rules/${r.id}/`)).body;
    assert.equal(fired.fire_count, 1);
    assert.ok(fired.last_fired_at);
    const audits = (await t.get(`/api/v2/audit_events/?event_type=eda.rule_fired&target_id=${r.id}`)).body;
    assert.equal(audits.count, 1, JSON.stringify(audits));
    assert.equal(audits.results[0].detail.event_log_id, log.id);
  });

  it('leaves unmatched events and erroring conditions unfired, keeping each result', async () => {
    const r = await rule([{ action_type: 'launch_job_template', target_id: template }], {
      conditions: [{ jinja2_expression: 'event.kind == "deploy"', description: '' }, { jinja2_expression: 'event.hosts | length > 0', description: 'needs hosts' }],
    });
    const jobs = (await t.db.query('SELECT count(*)::int AS n FROM unified_jobs'))[0].n;
    const unmatched = await fire(r, { kind: 'other', hosts: ['a'] });
    assert.equal(unmatched.status, 'unmatched');
    assert.equal(unmatched.conditions_matched, false);
    // All must hold: once one does not, the rest are not evaluated (a dry run evaluates them all).
    assert.deepEqual(unmatched.condition_results, [
      { expression: 'event.kind == "deploy"', description: '', matched: false },
      { expression: 'event.hosts | length > 0', description: 'needs hosts', matched: false, skipped: true },
    ]);
    const erroring = await fire(r, { kind: 'deploy' });
    assert.equal(erroring.status, 'unmatched');
    assert.equal(erroring.condition_results[1].matched, false);
    assert.match(erroring.condition_results[1].error, /Template error/);
    assert.deepEqual(erroring.actions_triggered, []);
    assert.equal((await t.db.query('SELECT count(*)::int AS n FROM unified_jobs'))[0].n, jobs);
    assert.equal((await t.get(`/api/v2/event_rules/${r.id}/`)).body.fire_count, 0);
  });

  it('throttles firings inside throttle_seconds', async () => {
    const r = await rule([{ action_type: 'send_notification', target_id: notification }], { throttle_seconds: 3600 });
    assert.equal((await fire(r, { kind: 'deploy', n: 1 })).status, 'action_fired');
    const second = await fire(r, { kind: 'deploy', n: 2 });
    assert.equal(second.status, 'throttled');
    assert.equal(second.conditions_matched, true);
    assert.equal((await t.get(`/api/v2/event_rules/${r.id}/`)).body.fire_count, 1);
    assert.equal((await t.get(`/api/v2/event_rules/${r.id}/event_logs/?status=throttled`)).body.count, 1);
    // A dry run says so too.
    const dry = await t.post(`/api/v2/event_rules/${r.id}/test/`, { payload: { kind: 'deploy' } });
    assert.equal(dry.body.matched, true);
    assert.equal(dry.body.would_fire, false);
  });

  it('launches a workflow and sends a notification with the event summary', async () => {
    const r = await rule([{ action_type: 'launch_workflow', target_id: workflow }, { action_type: 'send_notification', target_id: notification, description: 'page ops' }]);
    const log = await fire(r, { kind: 'deploy', note: 'wf', event_id: 'wf-1' });
    assert.equal(log.status, 'action_fired', JSON.stringify(log.actions_triggered));
    const workflowJob = log.actions_triggered[0].workflow_job;
    assert.equal(log.job_id, workflowJob);
    const wf = (await t.get(`/api/v2/workflow_jobs/${workflowJob}/`)).body;
    assert.equal(wf.launch_type, 'webhook');
    assert.equal(JSON.parse(wf.extra_vars).svc_eda_event_guid, 'wf-1');
    const sent = await eventually(async () => peer.received.find((m) => m.url === '/eda' && m.body.includes('wf-1')), 20_000, 'notification');
    const body = JSON.parse(sent.body);
    assert.equal(body.event_guid, 'wf-1');
    assert.equal(body.rule, r.name);
    assert.deepEqual(body.payload, { kind: 'deploy', note: 'wf', event_id: 'wf-1' });
    assert.equal((await waitForRun(t, `/api/v2/workflow_jobs/${workflowJob}/`)).status, 'successful');
  });

  it('records action_failed with the reason when a target cannot be launched, keeping the actions that worked', async () => {
    const extra = await t.post(`/api/v2/job_templates/${template}/copy/`, { name: 'Doomed' });
    assert.equal(extra.status, 201, extra.text);
    const r = await rule([{ action_type: 'launch_job_template', target_id: extra.body.id }, { action_type: 'send_notification', target_id: notification }]);
    assert.equal((await t.delete(`/api/v2/job_templates/${extra.body.id}/`)).status, 204);
    const log = await fire(r, { kind: 'deploy', event_id: 'doomed' });
    assert.equal(log.status, 'action_failed');
    assert.equal(log.actions_triggered[0].ok, false);
    assert.match(log.actions_triggered[0].error, /There is no job template/);
    assert.equal(log.actions_triggered[1].ok, true);
    assert.equal(log.job_id, null);
    const audits = (await t.get(`/api/v2/audit_events/?event_type=eda.rule_fired&target_id=${r.id}`)).body.results;
    assert.equal(audits[0].outcome, 'failure');
  });

  it('shows event logs to the organization\'s admins and auditors only, and keeps them when the rule is deleted', async () => {
    const r = await rule([{ action_type: 'send_notification', target_id: notification }]);
    const log = await fire(r, { kind: 'deploy', event_id: 'kept' });
    const list = (await t.get(`/api/v2/event_logs/?event_rule=${r.id}`)).body;
    assert.equal(list.count, 1);
    assert.equal(list.results[0].payload, undefined, 'lists leave the payload to the detail');
    assert.equal((await t.get(`/api/v2/event_logs/${log.id}/`, { as: auditor })).status, 200);
    for (const user of [member, otherAdmin]) {
      assert.equal((await t.get(`/api/v2/event_logs/${log.id}/`, { as: user })).status, 403);
      assert.equal((await t.get('/api/v2/event_logs/', { as: user })).body.count, 0);
    }
    assert.equal((await t.post('/api/v2/event_logs/', {})).status, 405);
    assert.equal((await t.delete(`/api/v2/event_logs/${log.id}/`)).status, 405);
    assert.equal((await t.delete(`/api/v2/event_rules/${r.id}/`)).status, 204);
    const kept = (await t.get(`/api/v2/event_logs/${log.id}/`, { as: auditor })).body;
    assert.equal(kept.event_rule, null);
    assert.equal(kept.event_rule_name, r.name);
  });
});
