import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, type TestApp } from './helpers/app.ts';
import { eventually, runDirectories, waitForRun } from './helpers/jobs.ts';

const LOCAL = 'ansible_connection: local\nansible_python_interpreter: /usr/bin/python3';

describe('running ad hoc commands', () => {
  let t: TestApp;
  let inventory: number;
  let hosts: Record<string, number>;

  before(async () => {
    t = await createTestApp();
    const org = (await newOrg(t)).id;
    inventory = (await t.post('/api/v2/inventories/', { name: 'Local', organization: org, variables: LOCAL })).body.id;
    hosts = {};
    for (const name of ['h1', 'h2']) hosts[name] = (await t.post('/api/v2/hosts/', { name, inventory })).body.id;
    const group = (await t.post('/api/v2/groups/', { name: 'second', inventory })).body.id;
    assert.equal((await t.post(`/api/v2/groups/${group}/hosts/`, { id: hosts.h2 })).status, 204);
  });
  after(() => t.close());

  const start = async (body: Record<string, unknown>, url = '/api/v2/ad_hoc_commands/') => {
    const res = await t.post(url, body);
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const run = async (body: Record<string, unknown>, url?: string) => waitForRun(t, (await start({ inventory, ...body }, url)).url, 120_000);
  const events = async (id: number, query = '') => (await t.get(`/api/v2/ad_hoc_commands/${id}/events/?page_size=200${query}`)).body.results;
  const stdout = async (id: number) => (await t.get(`/api/v2/ad_hoc_commands/${id}/stdout/?format=txt`)).text;

  it('ping runs on every host: events, output and host counts', async () => {
    const created = await start({ inventory, module_name: 'ping' });
    assert.equal(created.type, 'ad_hoc_command');
    assert.equal(created.name, 'ping');
    assert.equal(created.status, 'pending');
    assert.equal(created.launch_type, 'manual');
    assert.equal(created.summary_fields.inventory.name, 'Local');
    assert.equal(created.related.relaunch, `/api/v2/ad_hoc_commands/${created.id}/relaunch/`);
    const done = await waitForRun(t, created.url, 120_000);
    assert.equal(done.status, 'successful', done.job_explanation);
    assert.ok(done.started && done.finished && done.elapsed >= 0);
    assert.deepEqual(done.host_status_counts, { ok: 2 });
    const ok = await events(done.id, '&event=runner_on_ok');
    assert.deepEqual(ok.map((e: any) => e.host_name).sort(), ['h1', 'h2']);
    assert.equal(ok[0].type, 'ad_hoc_command_event');
    assert.equal(ok[0].ad_hoc_command, done.id);
    assert.ok([hosts.h1, hosts.h2].includes(ok[0].host));
    assert.match(await stdout(done.id), /pong/);
  });

  it('command runs its arguments; its output is in stdout', async () => {
    const done = await run({ module_name: 'command', module_args: 'echo hello-from-adhoc', verbosity: 1, forks: 2 });
    assert.equal(done.status, 'successful', done.job_explanation);
    assert.equal(done.name, 'command');
    assert.equal(done.module_args, 'echo hello-from-adhoc');
    assert.match(await stdout(done.id), /hello-from-adhoc/);
  });

  it('a failing command fails the run', async () => {
    const done = await run({ module_name: 'shell', module_args: 'exit 3' });
    assert.equal(done.status, 'failed');
    assert.equal(done.failed, true);
    assert.deepEqual(done.host_status_counts, { failures: 2 });
    assert.equal((await events(done.id, '&failed=true')).length, 2);
  });

  it('limit selects the hosts; a host or group list limits to it', async () => {
    const limited = await run({ module_name: 'ping', limit: 'h2' });
    assert.equal(limited.status, 'successful', limited.job_explanation);
    const names = new Set((await events(limited.id)).map((e: any) => e.host_name).filter(Boolean));
    assert.deepEqual([...names], ['h2']);
    const impact = async (id: number) => (await t.db.query('SELECT task_impact FROM unified_jobs WHERE id = $1', [id]))[0].task_impact;
    assert.equal(await impact(limited.id), 2, 'one host matched, plus one');

    const fromHost = await run({ module_name: 'ping', inventory: 999999, limit: 'ignored' }, `/api/v2/hosts/${hosts.h1}/ad_hoc_commands/`);
    assert.equal(fromHost.inventory, inventory);
    assert.equal(fromHost.limit, 'h1');
    assert.deepEqual([...new Set((await events(fromHost.id)).map((e: any) => e.host_name).filter(Boolean))], ['h1']);
    const h1List = (await t.get(`/api/v2/hosts/${hosts.h1}/ad_hoc_commands/`)).body;
    assert.ok(h1List.results.some((c: any) => c.id === fromHost.id));
    assert.ok(!h1List.results.some((c: any) => c.id === limited.id), 'a command that never touched h1 is not listed under it');

    const group = (await t.get(`/api/v2/groups/?name=second&inventory=${inventory}`)).body.results[0].id;
    const fromGroup = await run({ module_name: 'ping' }, `/api/v2/groups/${group}/ad_hoc_commands/`);
    assert.equal(fromGroup.limit, 'second');
    assert.equal(await impact(fromGroup.id), 2);
    const everywhere = await start({ inventory, module_name: 'ping', limit: 'all:!nothing-here' });
    assert.equal(await impact(everywhere.id), 3);
    await waitForRun(t, everywhere.url, 120_000);
    assert.ok((await t.get(`/api/v2/groups/${group}/ad_hoc_commands/`)).body.results.some((c: any) => c.id === limited.id));
  });

  it('check mode and diff run; extra vars are never templated', async () => {
    const done = await run({ module_name: 'command', module_args: 'touch /nonexistent-dir/never', job_type: 'check', diff_mode: true });
    assert.equal(done.status, 'successful', done.job_explanation);
    assert.equal(done.job_type, 'check');
    assert.equal((await events(done.id, '&event=runner_on_skipped')).length, 2, 'command skips in check mode');

    const allowed = (await t.get('/api/v2/settings/jobs/')).body.AD_HOC_COMMANDS;
    assert.equal((await t.patch('/api/v2/settings/jobs/', { AD_HOC_COMMANDS: [...allowed, 'debug'] })).status, 200);
    try {
      const shown = await run({ module_name: 'debug', module_args: 'var=note', limit: 'h1', extra_vars: 'note: "{{ 6 * 7 }}-{{ lookup(\'env\', \'HOME\') }}"' });
      assert.equal(shown.status, 'successful', shown.job_explanation);
      const output = await stdout(shown.id);
      assert.match(output, /\{\{ 6 \* 7 \}\}-\{\{ lookup/);
      assert.doesNotMatch(output, /"42-/);
    } finally {
      await t.patch('/api/v2/settings/jobs/', { AD_HOC_COMMANDS: allowed });
    }
  });

  it('the inventory list shows its commands and starts new ones; unified jobs include them', async () => {
    const done = await run({ module_name: 'ping' }, `/api/v2/inventories/${inventory}/ad_hoc_commands/`);
    assert.equal(done.inventory, inventory);
    const list = (await t.get(`/api/v2/inventories/${inventory}/ad_hoc_commands/`)).body;
    assert.ok(list.count >= 5);
    assert.ok(list.results.every((c: any) => c.inventory === inventory));
    const unified = (await t.get('/api/v2/unified_jobs/?type=ad_hoc_command')).body;
    assert.equal(unified.count, (await t.get('/api/v2/ad_hoc_commands/')).body.count);
    assert.equal(unified.results[0].type, 'ad_hoc_command');
    assert.match(unified.results[0].url, /^\/api\/v2\/ad_hoc_commands\/\d+\/$/);
  });

  it('cancel stops a running command; a running command cannot be deleted; its private files are gone', async () => {
    const started = await start({ inventory, module_name: 'command', module_args: 'sleep 60', limit: 'h1' });
    await eventually(async () => (await events(started.id, '&event=runner_on_start')).length > 0, 60_000);
    assert.equal((await t.get(`${started.url}cancel/`)).body.can_cancel, true);
    assert.equal((await t.delete(started.url)).status, 403);
    assert.equal((await t.post(`${started.url}cancel/`)).status, 202);
    const done = await waitForRun(t, started.url);
    assert.equal(done.status, 'canceled');
    assert.equal((await t.get(`${started.url}cancel/`)).body.can_cancel, false);
    assert.equal((await t.post(`${started.url}cancel/`)).status, 405);
    assert.deepEqual(await runDirectories(t, started.id), []);
    assert.equal((await t.delete(started.url)).status, 204);
    assert.equal((await t.get(started.url)).status, 404);
  });

  it('relaunch runs a new command with the same values', async () => {
    const first = await run({ module_name: 'command', module_args: 'echo again', limit: 'h1', forks: 3 });
    const url = `/api/v2/ad_hoc_commands/${first.id}/relaunch/`;
    assert.deepEqual((await t.get(url)).body, { passwords_needed_to_start: [] });
    const res = await t.post(url, {});
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.ad_hoc_command, res.body.id);
    assert.equal(res.headers.location, `/api/v2/ad_hoc_commands/${res.body.id}/`);
    assert.notEqual(res.body.id, first.id);
    assert.equal(res.body.launch_type, 'relaunch');
    for (const field of ['module_name', 'module_args', 'limit', 'forks', 'inventory', 'job_type']) assert.deepEqual(res.body[field], first[field], field);
    const again = await waitForRun(t, res.body.url, 120_000);
    assert.equal(again.status, 'successful', again.job_explanation);
    assert.match(await stdout(again.id), /again/);
  });

  it('a machine credential is used and leaves no secret or file behind', async () => {
    const ssh = (await t.get('/api/v2/credential_types/?namespace=ssh')).body.results[0].id;
    const credential = (await t.post('/api/v2/credentials/', {
      name: 'local login', organization: null, user: (await t.get('/api/v2/me/')).body.results[0].id, credential_type: ssh,
      inputs: { username: 'root', password: 'ASK' },
    })).body;
    assert.ok(credential.id, JSON.stringify(credential));
    const done = await run({ module_name: 'command', module_args: 'echo with-credential', credential: credential.id, limit: 'h1', ssh_password: 'adhoc-secret-pw-42' });
    assert.equal(done.status, 'successful', done.job_explanation);
    assert.equal(done.credential, credential.id);
    assert.equal(done.summary_fields.credential.name, 'local login');
    assert.deepEqual(await runDirectories(t, done.id), []);
    const seen = [
      await stdout(done.id),
      JSON.stringify(await events(done.id)),
      JSON.stringify((await t.get(done.url)).body),
      JSON.stringify((await t.get('/api/v2/activity_stream/?page_size=200')).body),
    ].join('\n');
    assert.match(seen, /with-credential/);
    assert.ok(!seen.includes('adhoc-secret-pw-42'));

    const relaunched = await t.post(`${done.url}relaunch/`, { ssh_password: 'adhoc-secret-pw-43' });
    assert.equal(relaunched.status, 201, relaunched.text);
    const again = await waitForRun(t, relaunched.body.url, 120_000);
    assert.equal(again.status, 'successful', again.job_explanation);
    assert.ok(!(await stdout(again.id)).includes('adhoc-secret-pw-43'));
  });
});
