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

describe('event log durability and retention', () => {
  let t: TestApp;
  let rule: { id: number; webhook_path: string; key: string };

  before(async () => {
    // No background loops: events are received while nothing evaluates them, as when a node stops.
    t = await createTestApp({}, { dispatcher: false });
    const org = (await newOrg(t)).id;
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
    const statuses = async () => (await t.db.query('SELECT status FROM event_logs WHERE id = ANY($1::bigint[]) ORDER BY id', [ids])).map((r) => r.status);
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

  it('removes evaluated logs older than 30 days, never one still waiting', async () => {
    const waiting = (await sendEvent(t, rule.webhook_path, rule.key, { n: 9, event_id: 'waiting' })).body.event_log_id;
    const [{ n: total }] = await t.db.query('SELECT count(*)::int AS n FROM event_logs');
    await t.db.query("UPDATE event_logs SET created = created - interval '31 days'");
    assert.equal(await pruneEventLogs(t.db), total - 1);
    assert.deepEqual((await t.db.query('SELECT id FROM event_logs')).map((r) => Number(r.id)), [waiting]);
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
