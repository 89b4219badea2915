import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadEnvConfig, type EnvConfig } from '../src/config/env.ts';
import { registerInstance } from '../src/resources/instances/registration.ts';
import { inspect, manage } from './helpers/standalone.ts';
import { detectAnsibleRuntime } from '../src/runtime/ansible-runtime.ts';

const groupsOf = (env: EnvConfig, hostname: string) =>
  inspect(env, async ({ db }) =>
    (await db.query(
      `SELECT g.name FROM instance_groups g JOIN instance_group_instances m ON m.instance_group_id = g.id
       JOIN instances i ON i.id = m.instance_id WHERE i.hostname = $1 ORDER BY g.name`,
      [hostname],
    )).map((r) => r.name),
  );

describe('instance management commands', () => {
  let env: EnvConfig;
  before(async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'drover-instances-'));
    env = await loadEnvConfig({ SVC_DATA_DIR: dataDir, SVC_ADMIN_PASSWORD: 'x', SVC_NODE_NAME: 'cmd-node' });
  });

  it('check_instance_ready exits 1 with the reason until the node is registered, then 0', async () => {
    const fresh = await manage(env, 'check_instance_ready');
    assert.equal(fresh.code, 1);
    assert.match(fresh.err[0], /cmd-node is not ready: \d+ database migration\(s\) not applied/);
    // Opening the services migrates the database.
    await inspect(env, async () => undefined);
    const notRegistered = await manage(env, 'check_instance_ready');
    assert.equal(notRegistered.code, 1);
    assert.match(notRegistered.err[0], /instance cmd-node is not registered/);
    await inspect(env, (services) => registerInstance(services));
    const ready = await manage(env, 'check_instance_ready');
    assert.equal(ready.code, 0, ready.err.join('\n'));
    assert.match(ready.out[0], /^Instance cmd-node is ready \(ansible-core 2\.\d+\S*, ansible-runner \d+\.\S+\)$/);
    assert.equal((await manage(env, 'check_instance_ready', '--bogus')).code, 2);
  });

  it('check_instance_ready exits 1 when the node is disabled or recorded the runtime missing', async () => {
    await inspect(env, ({ db }) => db.query(`UPDATE instances SET enabled = false WHERE hostname = 'cmd-node'`));
    const disabled = await manage(env, 'check_instance_ready');
    assert.equal(disabled.code, 1);
    assert.match(disabled.err[0], /instance cmd-node is disabled/);
    await inspect(env, ({ db }) => db.query(`UPDATE instances SET enabled = true WHERE hostname = 'cmd-node'`));
    const missing = await detectAnsibleRuntime({ ansiblePlaybook: '/nonexistent/ansible-playbook', ansibleRunner: '/nonexistent/ansible-runner' });
    await inspect(env, (services) => registerInstance(services, missing));
    const res = await manage(env, 'check_instance_ready');
    assert.equal(res.code, 1);
    assert.match(res.err[0], /Ansible runtime missing: .*apt-get install ansible-core python3-ansible-runner/);
    const listed = await manage(env, 'list_instances');
    assert.match(listed.out[0], /^cmd-node capacity=0 .*errors="Ansible runtime missing/);
    await inspect(env, (services) => registerInstance(services));
    assert.equal((await manage(env, 'check_instance_ready')).code, 0);
  });

  it('provision_instance registers a node into the default group, and updates its type', async () => {
    const res = await manage(env, 'provision_instance', '--hostname', 'exec-1', '--node_type', 'execution');
    assert.deepEqual(res, { code: 0, out: ['Successfully registered instance exec-1 (node_type execution)'], err: [] });
    assert.deepEqual(await groupsOf(env, 'exec-1'), ['default']);
    const again = await manage(env, 'provision_instance', '--hostname', 'exec-1', '--node_type', 'execution');
    assert.deepEqual(again.out, ['Instance already registered exec-1']);
    const control = await manage(env, 'provision_instance', '--hostname=exec-1', '--node_type=control');
    assert.equal(control.code, 0);
    const [row] = await inspect(env, ({ db }) => db.query(`SELECT node_type FROM instances WHERE hostname = 'exec-1'`));
    assert.equal(row.node_type, 'control');
    assert.deepEqual(await groupsOf(env, 'exec-1'), [], 'control nodes leave the default group');
    const list = await manage(env, 'list_instances');
    assert.deepEqual(list.out.map((l) => l.split(' ')[0]), ['cmd-node', 'exec-1']);
    assert.match(list.out[1], /node_type=control .*\[UNGROUPED\]/);
  });

  it('provision_instance refuses bad arguments with exit 2', async () => {
    const noHost = await manage(env, 'provision_instance');
    assert.equal(noHost.code, 2);
    assert.match(noHost.err[0], /--hostname is required/);
    const badType = await manage(env, 'provision_instance', '--hostname', 'x', '--node_type', 'hop');
    assert.equal(badType.code, 2);
    assert.match(badType.err[0], /--node_type must be one of hybrid, control, execution/);
    const [{ count }] = await inspect(env, ({ db }) => db.query(`SELECT count(*)::int AS count FROM instances WHERE hostname = 'x'`));
    assert.equal(count, 0);
  });

  it('deprovision_instance removes a node and its memberships; unknown names exit 1', async () => {
    await manage(env, 'provision_instance', '--hostname', 'exec-2');
    assert.deepEqual(await groupsOf(env, 'exec-2'), ['default']);
    const res = await manage(env, 'deprovision_instance', '--hostname', 'exec-2');
    assert.deepEqual(res, { code: 0, out: ['Successfully deprovisioned exec-2'], err: [] });
    const rows = await inspect(env, ({ db }) => db.query(`SELECT 1 FROM instances WHERE hostname = 'exec-2'`));
    assert.equal(rows.length, 0);
    const unknown = await manage(env, 'deprovision_instance', '--hostname', 'exec-2');
    assert.equal(unknown.code, 1);
    assert.match(unknown.err[0], /^Error: Instance exec-2 is not registered/);
    assert.equal((await manage(env, 'deprovision_instance')).code, 2);
  });

  it('help lists the instance commands', async () => {
    const res = await manage(env, 'help');
    for (const name of ['provision_instance', 'deprovision_instance', 'check_instance_ready', 'list_instances']) {
      assert.ok(res.out.some((line) => line.trimStart().startsWith(name)), name);
    }
  });
});
