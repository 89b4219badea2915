import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { newOrg } from './helpers/factories.ts';
import { saveFacts } from './helpers/drift.ts';
import { pruneFactSnapshots } from '../src/drift/retention.ts';
import { runManageCommand } from '../src/cli/manage.ts';
import { loadEnvConfig } from '../src/config/env.ts';

describe('fact snapshot retention', () => {
  let t: TestApp;
  let inventory: number;
  before(async () => {
    t = await createTestApp();
    const org = (await newOrg(t)).id;
    inventory = (await t.post('/api/v2/inventories/', { name: 'Kept', organization: org })).body.id;
  });
  after(() => t.close());

  const hostWithSnapshots = async (name: string, count: number) => {
    const id = (await t.post('/api/v2/hosts/', { name, inventory })).body.id;
    for (let i = 0; i < count; i++) await saveFacts(t, { [id]: { app_version: String(i) } });
    return id;
  };
  const snapshotsOf = async (host: number) => (await t.get(`/api/v2/fact_snapshots/?host=${host}&order_by=captured_at`)).body.results;

  it('removes snapshots older than 90 days but always keeps the two newest of each host', async () => {
    const old = await hostWithSnapshots('old', 4);
    const pair = await hostWithSnapshots('pair', 2);
    const fresh = await hostWithSnapshots('fresh', 3);
    const before = await snapshotsOf(old);
    await t.db.query(`UPDATE host_fact_snapshots SET captured_at = captured_at - interval '100 days' WHERE host_id = ANY($1::int[])`, [[old, pair]]);
    const drift = (await t.get(`/api/v2/drift_detections/?host=${old}&order_by=created`)).body.results[0];
    assert.equal(drift.snapshot_before, before[0].id);

    assert.equal(await pruneFactSnapshots(t.db), 2);
    assert.deepEqual((await snapshotsOf(old)).map((s: any) => s.id), before.slice(2).map((s: any) => s.id));
    assert.equal((await snapshotsOf(pair)).length, 2, 'the two newest stay, however old');
    assert.equal((await snapshotsOf(fresh)).length, 3, 'recent snapshots stay');
    const kept = (await t.get(`/api/v2/drift_detections/${drift.id}/`)).body;
    assert.equal(kept.snapshot_before, null, 'drift outlives its snapshots');
    assert.equal(kept.fact_path, 'app_version');
  });

  it('drover manage cleanup_fact_snapshots says how many it deleted and refuses bad options', async () => {
    const env = await loadEnvConfig({ SVC_DATA_DIR: await mkdtemp(path.join(tmpdir(), 'drover-retention-')), SVC_ADMIN_PASSWORD: 'x', SVC_NODE_NAME: t.env.nodeName });
    const out: string[] = [];
    const io = { out: (l: string) => out.push(l), err: (l: string) => out.push(l) };
    assert.equal(await runManageCommand(env, ['cleanup_fact_snapshots', '--days', '30'], io), 0);
    assert.deepEqual(out, ['Deleted 0 fact snapshots.']);
    out.length = 0;
    assert.notEqual(await runManageCommand(env, ['cleanup_fact_snapshots', '--keep', '0'], io), 0);
    assert.match(out.join('\n'), /--keep must be a whole number \(1 or more\)/);
  });
});
