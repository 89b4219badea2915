import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, grant, newOrg, newUser, type TestApp, type User } from './helpers/app.ts';
import { waitForRun } from './helpers/jobs.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const URL = '/api/v2/ad_hoc_commands/';

describe('ad hoc commands: validation and access', () => {
  let t: TestApp;
  let org: number;
  let inventory: any;
  let machine: any;
  let user: User;

  before(async () => {
    t = await createTestApp();
    org = (await newOrg(t)).id;
    inventory = (await t.post('/api/v2/inventories/', { name: 'Guarded', organization: org })).body;
    await t.post('/api/v2/hosts/', { name: 'web1', inventory: inventory.id });
    const ssh = (await t.get('/api/v2/credential_types/?namespace=ssh')).body.results[0].id;
    machine = (await t.post('/api/v2/credentials/', { name: 'machine', organization: org, credential_type: ssh, inputs: { username: 'deploy' } })).body;
    user = await newUser(t, { username: 'adhoc-user' });
  });
  after(() => t.close());

  const count = async () => (await t.db.query<AnyRow>(`SELECT count(*)::int AS n FROM unified_jobs WHERE kind = 'ad_hoc_command'`))[0].n as number;
  /** Refused before anything is stored: the status and body, with no command created. */
  const refused = async (body: Record<string, unknown>, as?: User) => {
    const before = await count();
    const res = await t.post(URL, body, as ? { as } : undefined);
    assert.equal(await count(), before, 'nothing is stored');
    return res;
  };

  it('a module outside AD_HOC_COMMANDS is refused; the setting decides', async () => {
    const res = await refused({ inventory: inventory.id, module_name: 'raw', module_args: 'id' });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { module_name: ['"raw" is not a valid choice.'] });
    const jobs = (await t.get('/api/v2/settings/jobs/')).body;
    assert.ok(jobs.AD_HOC_COMMANDS.includes('ping') && jobs.AD_HOC_COMMANDS.includes('command'));
    assert.equal((await t.patch('/api/v2/settings/jobs/', { AD_HOC_COMMANDS: ['ping'] })).status, 200);
    assert.equal((await refused({ inventory: inventory.id, module_args: 'id' })).status, 400, 'command is not the default once disallowed');
    assert.equal((await t.patch('/api/v2/settings/jobs/', { AD_HOC_COMMANDS: 'ping' })).status, 400);
    assert.equal((await t.delete('/api/v2/settings/jobs/')).status, 204);
  });

  it('command and shell need arguments; module_args hold no Jinja; extra vars set no ansible_ variables', async () => {
    for (const module of ['command', 'shell']) {
      const res = await refused({ inventory: inventory.id, module_name: module, module_args: '  ' });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { module_args: [`No argument passed to ${module} module.`] });
    }
    assert.deepEqual((await refused({ inventory: inventory.id, module_args: 'echo {{ secret }}' })).body, { module_args: ['Inline Jinja variables are not allowed.'] });
    const vars = await refused({ inventory: inventory.id, module_name: 'ping', extra_vars: { ansible_user: 'x', ansible_become: true, fine: 1 } });
    assert.deepEqual(vars.body, { extra_vars: ['ansible_user, ansible_become are prohibited from use in ad hoc commands.'] });
    assert.equal((await refused({ inventory: inventory.id, module_name: 'ping', extra_vars: '[1, 2]' })).status, 400);
  });

  it('bad values answer 400 by field', async () => {
    const missing = await refused({ module_name: 'ping' });
    assert.equal(missing.status, 400);
    assert.ok(missing.body.inventory);
    const bad = await refused({ inventory: inventory.id, module_name: 'ping', job_type: 'scan', verbosity: 9, forks: -1 });
    assert.equal(bad.status, 400);
    assert.deepEqual(Object.keys(bad.body).sort(), ['forks', 'job_type', 'verbosity']);
    assert.deepEqual((await refused({ inventory: 999999, module_name: 'ping' })).body, { inventory: ['Invalid pk "999999" - object does not exist.'] });
    assert.deepEqual((await refused({ inventory: inventory.id, module_name: 'ping', forks: 201 })).body, { forks: ['Maximum number of forks (200) exceeded.'] });
    assert.equal((await t.post(URL, [1])).status, 400);
  });

  it('only a Machine credential is accepted; one asking for passwords at launch needs them', async () => {
    const scm = (await t.get('/api/v2/credential_types/?namespace=scm')).body.results[0].id;
    const other = (await t.post('/api/v2/credentials/', { name: 'git', organization: org, credential_type: scm, inputs: { username: 'u' } })).body;
    assert.deepEqual((await refused({ inventory: inventory.id, module_name: 'ping', credential: other.id })).body, { credential: ['You must provide a machine / SSH credential.'] });
    const ssh = (await t.get('/api/v2/credential_types/?namespace=ssh')).body.results[0].id;
    const asking = (await t.post('/api/v2/credentials/', { name: 'asking', organization: org, credential_type: ssh, inputs: { username: 'u', password: 'ASK' } })).body;
    assert.deepEqual((await refused({ inventory: inventory.id, module_name: 'ping', credential: asking.id })).body, { passwords_needed_to_start: ['ssh_password'] });
    const given = await t.post(URL, { inventory: inventory.id, module_name: 'ping', credential: asking.id, ssh_password: 'asked-pw-77' });
    assert.equal(given.status, 201, given.text);
    assert.ok(!JSON.stringify(given.body).includes('asked-pw-77') && !('ssh_password' in given.body) && !('credential_passwords' in given.body));
    const [stored] = await t.db.query<AnyRow>('SELECT credential_passwords FROM unified_jobs WHERE id = $1', [given.body.id]);
    assert.ok(stored.credential_passwords && !stored.credential_passwords.includes('asked-pw-77'), 'kept encrypted');
    assert.deepEqual((await t.get(`${given.body.url}relaunch/`)).body, { passwords_needed_to_start: ['ssh_password'] });
    await t.post(`${given.body.url}cancel/`);
    assert.deepEqual((await t.post(`${given.body.url}relaunch/`, {})).body, { passwords_needed_to_start: ['ssh_password'] });
    const activity = JSON.stringify((await t.get(`/api/v2/ad_hoc_commands/${given.body.id}/activity_stream/`)).body);
    assert.ok(!activity.includes('asked-pw-77') && !activity.includes(stored.credential_passwords));
  });

  it('running needs adhoc_role on the inventory and use_role on the credential (403 otherwise)', async () => {
    await grant(t, user, inventory, 'read_role');
    const body = { inventory: inventory.id, module_name: 'ping' };
    const noAdhoc = await refused(body, user);
    assert.equal(noAdhoc.status, 403);
    assert.equal((await t.post(`/api/v2/inventories/${inventory.id}/ad_hoc_commands/`, { module_name: 'ping' }, { as: user })).status, 403);
    const allowed = (await t.request('OPTIONS', `/api/v2/inventories/${inventory.id}/ad_hoc_commands/`, { as: user })).body;
    assert.equal(allowed.actions.POST, undefined, 'OPTIONS offers no POST without adhoc_role');

    await grant(t, user, inventory, 'adhoc_role');
    assert.equal((await refused({ ...body, credential: machine.id }, user)).status, 403, 'no use_role on the credential');
    const created = await t.post(URL, body, { as: user });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.summary_fields.created_by.username, 'adhoc-user');
    await t.post(`${created.body.url}cancel/`, {}, { as: user });

    await grant(t, user, machine, 'use_role');
    const withCredential = await t.post(URL, { ...body, credential: machine.id }, { as: user });
    assert.equal(withCredential.status, 201, withCredential.text);
    assert.equal(withCredential.body.summary_fields.credential.name, 'machine');
    await t.post(`${withCredential.body.url}cancel/`, {}, { as: user });
    assert.equal((await t.get(withCredential.body.url, { as: user })).status, 200);
    assert.equal((await t.delete(withCredential.body.url, { as: user })).status, 403, 'deleting needs the inventory admin role');
  });

  it('organization admins inherit adhoc_role; others see nothing', async () => {
    const admin = await newUser(t, { admin: org });
    const res = await t.post(URL, { inventory: inventory.id, module_name: 'ping' }, { as: admin });
    assert.equal(res.status, 201, res.text);
    await t.post(`${res.body.url}cancel/`, {}, { as: admin });
    // Canceled at once while pending, or stopped by the dispatcher if it had started.
    assert.equal((await waitForRun(t, res.body.url)).status, 'canceled');
    const stranger = await newUser(t);
    assert.equal((await t.get(URL, { as: stranger })).body.count, 0);
    assert.equal((await t.get(res.body.url, { as: stranger })).status, 403);
    assert.equal((await t.post(`${res.body.url}relaunch/`, {}, { as: stranger })).status, 403);
    assert.equal((await t.get(`/api/v2/unified_jobs/?type=ad_hoc_command`, { as: stranger })).body.count, 0);
    assert.equal((await t.delete(res.body.url, { as: admin })).status, 204);
  });

  it('OPTIONS describes the list with the module choices as text and no updates on a command', async () => {
    const options = (await t.request('OPTIONS', URL)).body;
    assert.ok(options.actions.POST.module_name);
    assert.ok(options.actions.POST.inventory.required);
    const one = await t.post(URL, { inventory: inventory.id, module_name: 'ping' });
    await t.post(`${one.body.url}cancel/`);
    assert.equal((await t.patch(one.body.url, { limit: 'x' })).status, 405);
    assert.equal((await t.request('OPTIONS', `${one.body.url}relaunch/`)).status, 200);
  });
});
