import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { newOrg } from './helpers/factories.ts';
import { eventually } from './helpers/jobs.ts';
import { sendEvent } from './helpers/eda.ts';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventEvaluation } from '../src/composition/loops.ts';
import { pruneEventLogs } from '../src/eda/retention.ts';
import { runManageCommand } from '../src/cli/manage.ts';
import { loadEnvConfig } from '../src/config/env.ts';
import { GATES } from '../src/composition/root.ts';
import type { Gate } from '../src/runs/gates.ts';
import { mkdir, writeFile } from 'node:fs/promises';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

/** A gate that follows the `verdict` of the event a run was launched for (other runs pass). */
const eventVerdict: Gate = {
  name: 'event verdict',
  check: async (_tx, { run }) => {
    const verdict = (JSON.parse(String(run.extra_vars || '{}')).svc_eda_payload ?? {}).verdict;
    if (verdict === 'deny') return { decision: 'deny', status: 403, message: 'Denied for this event.' };
    if (verdict === 'warn') return { decision: 'warn', message: 'Warned for this event.' };
    return { decision: 'allow' };
  },
};

describe('event log durability and retention', () => {
  let t: TestApp;
  let rule: { id: number; webhook_path: string; key: string };
  let launcher: { id: number; webhook_path: string; key: string };
  let template: number;

  /** Evaluates what was received, with the evaluation loop running until nothing waits. */
  const evaluateReceived = async () => {
    const stop = await eventEvaluation.start(t.services);
    try {
      await eventually(async () => (await t.db.query<AnyRow>("SELECT 1 FROM event_logs WHERE status = 'received'")).length === 0, 20_000, 'evaluated');
    } finally {
      await stop();
    }
  };

  before(async () => {
    // No background loops: events are received while nothing evaluates them, as when a node stops.
    t = await createTestApp({}, { dispatcher: false, gates: [...GATES, eventVerdict] });
    const org = (await newOrg(t)).id;
    await mkdir(path.join(t.env.projectsRoot, 'reactions'), { recursive: true });
    await writeFile(path.join(t.env.projectsRoot, 'reactions', 'react.yml'), '- hosts: all\n  tasks: []\n');
    const project = (await t.post('/api/v2/projects/', { name: 'Reactions', organization: org, local_path: 'reactions' })).body.id;
    const inventory = (await t.post('/api/v2/inventories/', { name: 'Fleet', organization: org })).body.id;
    template = (await t.post('/api/v2/job_templates/', { name: 'React', project, inventory, playbook: 'react.yml', allow_simultaneous: true })).body.id;
    const launching = await t.post('/api/v2/event_rules/', {
      name: 'l', organization: org, webhook_path: 'launching', conditions: [{ jinja2_expression: 'event.n > 1' }], actions: [{ action_type: 'launch_job_template', target_id: template }],
    });
    assert.equal(launching.status, 201, launching.text);
    launcher = { ...launching.body, key: (await t.get(`/api/v2/event_rules/${launching.body.id}/webhook_key/`)).body.webhook_key };
    const notification = (await t.post('/api/v2/notification_templates/', {
      name: 'n', organization: org, notification_type: 'webhook', notification_configuration: { url: 'http://127.0.0.1:9/x', headers: {} },
    })).body.id;
    const res = await t.post('/api/v2/event_rules/', {
      name: 'r', organization: org, webhook_path: 'durable', conditions: [{ jinja2_expression: 'event.n > 1' }], actions: [{ action_type: 'send_notification', target_id: notification }],
    });
    rule = { ...res.body, key: (await t.get(`/api/v2/event_rules/${res.body.id}/webhook_key/`)).body.webhook_key };
  });
  after(() => t.close());

  it('evaluates what was received before the evaluation started', async () => {
    const ids: number[] = [];
    for (let n = 0; n < 5; n++) ids.push((await sendEvent(t, rule.webhook_path, rule.key, { n })).body.event_log_id);
    const statuses = async () => (await t.db.query<AnyRow>('SELECT status FROM event_logs WHERE id = ANY($1::bigint[]) ORDER BY id', [ids])).map((r) => r.status);
    assert.deepEqual(await statuses(), Array(5).fill('received'));
    const stop = await eventEvaluation.start(t.services);
    try {
      await eventually(async () => !(await statuses()).includes('received'), 20_000, 'evaluated');
      assert.deepEqual(await statuses(), ['unmatched', 'unmatched', 'action_fired', 'action_fired', 'action_fired']);
      assert.equal((await t.get(`/api/v2/event_rules/${rule.id}/`)).body.fire_count, 3);
    } finally {
      await stop();
    }
  });

  it('launches the runs a batch of events fires, each for its own event, and a gate that refuses one leaves the others launched', async () => {
    const send = async (payload: Record<string, unknown>) => (await sendEvent(t, launcher.webhook_path, launcher.key, payload)).body.event_log_id as number;
    const runsBefore = (await t.db.query<AnyRow>('SELECT count(*)::int AS n FROM unified_jobs'))[0].n;
    const allowed = [await send({ n: 2, tag: 'a' }), await send({ n: 3, tag: 'b' }), await send({ n: 4, tag: 'c' })];
    await evaluateReceived();
    const logs = await Promise.all(allowed.map(async (id) => (await t.get(`/api/v2/event_logs/${id}/`)).body));
    assert.deepEqual(logs.map((l) => l.status), ['action_fired', 'action_fired', 'action_fired']);
    const jobs = await Promise.all(logs.map(async (l) => (await t.get(`/api/v2/jobs/${l.job_id}/`)).body));
    assert.equal(new Set(jobs.map((j) => j.id)).size, 3, 'one job per event');
    assert.deepEqual(jobs.map((j) => JSON.parse(j.extra_vars).svc_eda_payload.tag), ['a', 'b', 'c']);
    assert.deepEqual(jobs.map((j) => [j.status, j.launch_type]), Array(3).fill(['pending', 'webhook']));
    assert.equal((await t.get(`/api/v2/job_templates/${template}/`)).body.related.current_job, `/api/v2/jobs/${jobs[2].id}/`, 'the template follows its last job');

    const mixed = [await send({ n: 5, tag: 'd', verdict: 'deny' }), await send({ n: 6, tag: 'e', verdict: 'warn' }), await send({ n: 7, tag: 'f' })];
    await evaluateReceived();
    const [denied, warned, plain] = await Promise.all(mixed.map(async (id) => (await t.get(`/api/v2/event_logs/${id}/`)).body));
    assert.equal(denied.status, 'action_failed');
    assert.equal(denied.job_id, null);
    assert.match(denied.actions_triggered[0].error, /Denied for this event/);
    assert.equal(warned.status, 'action_fired');
    assert.match((await t.get(`/api/v2/jobs/${warned.job_id}/`)).body.job_explanation, /Warned for this event/);
    assert.equal(plain.status, 'action_fired');
    assert.equal(JSON.parse((await t.get(`/api/v2/jobs/${plain.job_id}/`)).body.extra_vars).svc_eda_payload.tag, 'f');
    assert.equal((await t.db.query<AnyRow>('SELECT count(*)::int AS n FROM unified_jobs'))[0].n, runsBefore + 5, 'no run is left of the refused launch');
    assert.equal((await t.get(`/api/v2/event_rules/${launcher.id}/`)).body.fire_count, 6);
  });

  it('removes evaluated logs older than 30 days, never one still waiting', async () => {
    const waiting = (await sendEvent(t, rule.webhook_path, rule.key, { n: 9, event_id: 'waiting' })).body.event_log_id;
    const [{ n: total }] = await t.db.query<AnyRow>('SELECT count(*)::int AS n FROM event_logs');
    await t.db.query<AnyRow>("UPDATE event_logs SET created = created - interval '31 days'");
    assert.equal(await pruneEventLogs(t.db), total - 1);
    assert.deepEqual((await t.db.query<AnyRow>('SELECT id FROM event_logs')).map((r) => Number(r.id)), [waiting]);
    const env = await loadEnvConfig({ SVC_DATA_DIR: await mkdtemp(path.join(tmpdir(), 'drover-eda-retention-')), SVC_ADMIN_PASSWORD: 'x', SVC_NODE_NAME: t.env.nodeName });
    const out: string[] = [];
    const io = { out: (l: string) => out.push(l), err: (l: string) => out.push(l) };
    assert.equal(await runManageCommand(env, ['cleanup_event_logs', '--days', '0'], io), 0);
    assert.match(out.join('\n'), /^Deleted \d+ event logs?\.$/);
    out.length = 0;
    assert.notEqual(await runManageCommand(env, ['cleanup_event_logs', '--days', 'soon'], io), 0);
    assert.match(out.join('\n'), /--days must be a whole number/);
  });
});
