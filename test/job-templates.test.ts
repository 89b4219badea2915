import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, type TestApp } from './helpers/app.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { eventually, waitForRun } from './helpers/jobs.ts';

const PLAY = '- hosts: all\n  gather_facts: false\n  tasks: []\n';

describe('job templates', () => {
  let t: TestApp;
  let repo: GitRepository;
  let orgId: number;
  let project: number;
  let inventory: number;
  let machineType: number;
  let vaultType: number;
  let serial = 0;

  const syncedProject = async (name: string, fields: Record<string, unknown> = {}) => {
    const res = await t.post('/api/v2/projects/', { name, organization: orgId, scm_type: 'git', scm_url: `file://${repo.bare}`, ...fields });
    assert.equal(res.status, 201, res.text);
    const first = await eventually(async () => (await t.get(`/api/v2/projects/${res.body.id}/project_updates/`)).body.results[0]);
    assert.equal((await waitForRun(t, first.url)).status, 'successful');
    return res.body.id as number;
  };
  const template = async (fields: Record<string, unknown> = {}) => {
    const res = await t.post('/api/v2/job_templates/', { name: `jt-${++serial}`, project, inventory, playbook: 'site.yml', ...fields });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const credential = async (type: number, inputs: Record<string, unknown>) => {
    const res = await t.post('/api/v2/credentials/', { name: `c-${++serial}`, organization: orgId, credential_type: type, inputs });
    assert.equal(res.status, 201, res.text);
    return res.body.id as number;
  };

  before(async () => {
    t = await createTestApp();
    repo = await makeRepository({ 'site.yml': PLAY, 'deploy/web.yml': PLAY, 'README.md': 'not a playbook\n' });
    orgId = (await newOrg(t)).id;
    project = await syncedProject('app');
    inventory = (await t.post('/api/v2/inventories/', { name: 'inv', organization: orgId })).body.id;
    machineType = (await t.get('/api/v2/credential_types/?namespace=ssh')).body.results[0].id;
    vaultType = (await t.get('/api/v2/credential_types/?namespace=vault')).body.results[0].id;
  });
  after(async () => {
    await t.close();
    await repo.remove();
  });

  it('creates a template with AWX defaults and the project organization', async () => {
    const jt = await template({ description: 'd', host_config_key: 'key-123' });
    assert.equal(jt.type, 'job_template');
    assert.equal(jt.organization, orgId);
    assert.equal(jt.job_type, 'run');
    assert.equal(jt.forks, 0);
    assert.equal(jt.verbosity, 0);
    assert.equal(jt.job_slice_count, 1);
    assert.equal(jt.host_config_key, 'key-123');
    assert.equal(jt.status, 'never updated');
    assert.equal(jt.ask_inventory_on_launch, false);
    assert.equal(jt.related.launch, `/api/v2/job_templates/${jt.id}/launch/`);
    assert.deepEqual(Object.keys(jt.summary_fields.object_roles).sort(), ['admin_role', 'execute_role', 'read_role']);
    const listed = await t.get(`/api/v2/unified_job_templates/?id=${jt.id}`);
    assert.equal(listed.body.count, 1);
    assert.equal(listed.body.results[0].type, 'job_template');
    // organization is read-only: the project decides it.
    const other = (await newOrg(t, { name: 'Other' })).id;
    assert.equal((await t.patch(`/api/v2/job_templates/${jt.id}/`, { organization: other })).body.organization, orgId);
  });

  it('refuses bad field values with 400 and stores nothing', async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ job_type: 'deploy' }, 'job_type', /not a valid choice/],
      [{ verbosity: 6 }, 'verbosity', /"6" is not a valid choice/],
      [{ verbosity: -1 }, 'verbosity', /"-1" is not a valid choice/],
      [{ forks: -1 }, 'forks', /greater than or equal to 0/],
      [{ forks: 201 }, 'forks', /Maximum number of forks \(200\) exceeded/],
      [{ job_slice_count: 0 }, 'job_slice_count', /greater than or equal to 1/],
      [{ timeout: -5 }, 'timeout', /greater than or equal to 0/],
      [{ extra_vars: '- a\n- b\n' }, 'extra_vars', /./],
      [{ extra_vars: '{"a": ' }, 'extra_vars', /./],
      [{ playbook: 'README.md' }, 'playbook', /Playbook not found for project/],
      [{ playbook: 'missing.yml' }, 'playbook', /Playbook not found for project/],
      [{ project: null }, 'project', /must have a project/],
      [{ inventory: null }, 'inventory', /allow prompting/],
      [{ inventory: 99999 }, 'inventory', /object does not exist/],
      [{ scm_branch: 'dev' }, 'scm_branch', /does not allow overriding branch/],
      [{ name: '' }, 'name', /blank/],
    ];
    const before = (await t.get('/api/v2/job_templates/')).body.count;
    for (const [fields, field, message] of cases) {
      const res = await t.post('/api/v2/job_templates/', { name: 'bad', project, inventory, playbook: 'site.yml', ...fields });
      assert.equal(res.status, 400, `${JSON.stringify(fields)}: ${res.text}`);
      assert.match(String(res.body[field]), message, JSON.stringify(fields));
    }
    assert.equal((await t.get('/api/v2/job_templates/')).body.count, before);
  });

  it('accepts YAML or JSON extra_vars, playbooks in subdirectories, and prompting for the inventory', async () => {
    const yaml = await template({ extra_vars: 'a: 1\nb: [x]\n', playbook: 'deploy/web.yml' });
    assert.equal(yaml.extra_vars, 'a: 1\nb: [x]\n');
    const json = await template({ extra_vars: { a: 1 }, inventory: null, ask_inventory_on_launch: true, forks: 200, verbosity: 5, job_type: 'check' });
    assert.equal(json.extra_vars, '{"a": 1}');
    assert.equal(json.inventory, null);
    const res = await t.patch(`/api/v2/job_templates/${json.id}/`, { ask_inventory_on_launch: false });
    assert.equal(res.status, 400);
    assert.equal((await t.get(`/api/v2/job_templates/${json.id}/`)).body.ask_inventory_on_launch, true);
  });

  it('follows MAX_FORKS', async () => {
    assert.equal((await t.patch('/api/v2/settings/jobs/', { MAX_FORKS: 10 })).status, 200);
    try {
      const res = await t.post('/api/v2/job_templates/', { name: 'forky', project, inventory, playbook: 'site.yml', forks: 11 });
      assert.equal(res.status, 400);
      assert.match(res.body.forks[0], /Maximum number of forks \(10\)/);
      await template({ forks: 10 });
    } finally {
      await t.patch('/api/v2/settings/jobs/', { MAX_FORKS: 200 });
    }
  });

  it('checks the playbook against the new project when the project changes, and allows scm_branch only with allow_override', async () => {
    const overriding = await syncedProject('override', { allow_override: true });
    const jt = await template();
    const moved = await t.patch(`/api/v2/job_templates/${jt.id}/`, { project: overriding, scm_branch: 'main', ask_scm_branch_on_launch: true });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.body.scm_branch, 'main');
    const back = await t.patch(`/api/v2/job_templates/${jt.id}/`, { project });
    assert.equal(back.status, 400);
    assert.ok(back.body.scm_branch || back.body.ask_scm_branch_on_launch);
  });

  it('keeps names unique within the organization', async () => {
    const jt = await template();
    const res = await t.post('/api/v2/job_templates/', { name: jt.name, project, inventory, playbook: 'site.yml' });
    assert.equal(res.status, 400);
    assert.match(res.body.__all__[0], /already exists/);
  });

  it('attaches credentials: one per type, vaults only with distinct vault ids', async () => {
    const jt = await template();
    const url = `/api/v2/job_templates/${jt.id}/credentials/`;
    const [m1, m2] = [await credential(machineType, { username: 'a' }), await credential(machineType, { username: 'b' })];
    const [v1, v2, v3] = [
      await credential(vaultType, { vault_password: 'x', vault_id: 'dev' }),
      await credential(vaultType, { vault_password: 'y', vault_id: 'prod' }),
      await credential(vaultType, { vault_password: 'z', vault_id: 'dev' }),
    ];
    assert.equal((await t.post(url, { id: m1 })).status, 204);
    const second = await t.post(url, { id: m2 });
    assert.equal(second.status, 400);
    assert.deepEqual(second.body, { credentials: ['Cannot assign multiple Machine credentials.'] });
    assert.equal((await t.post(url, { id: v1 })).status, 204);
    assert.equal((await t.post(url, { id: v2 })).status, 204);
    const sameVault = await t.post(url, { id: v3 });
    assert.equal(sameVault.status, 400);
    assert.deepEqual(sameVault.body, { credentials: ['Cannot assign multiple Vault (id=dev) credentials.'] });
    const scm = (await t.get('/api/v2/credential_types/?namespace=scm')).body.results[0].id;
    const scmCred = await credential(scm, { username: 'git' });
    assert.equal((await t.post(url, { id: scmCred })).status, 400);
    const listed = await t.get(url);
    assert.deepEqual(listed.body.results.map((c: any) => c.id).sort(), [m1, v1, v2].sort());
    assert.equal((await t.get(`/api/v2/job_templates/${jt.id}/`)).body.summary_fields.credentials.length, 3);
    assert.equal((await t.post(url, { id: m1, disassociate: true })).status, 204);
    assert.equal((await t.post(url, { id: m2 })).status, 204);
  });

  it('lists jobs, schedules and labels of the template', async () => {
    const jt = await template();
    assert.equal((await t.get(`/api/v2/job_templates/${jt.id}/jobs/`)).body.count, 0);
    const schedules = await t.get(`/api/v2/job_templates/${jt.id}/schedules/`);
    assert.deepEqual(schedules.body, { count: 0, next: null, previous: null, results: [] });
    const created = await t.post(`/api/v2/job_templates/${jt.id}/labels/`, { name: 'web' });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.organization, orgId);
    const other = await template();
    assert.equal((await t.post(`/api/v2/job_templates/${other.id}/labels/`, { name: 'web' })).status, 204);
    assert.equal((await t.get('/api/v2/labels/?name=web')).body.count, 1);
    const detail = await t.get(`/api/v2/job_templates/${other.id}/`);
    assert.deepEqual(detail.body.summary_fields.labels, { count: 1, results: [{ id: created.body.id, name: 'web' }] });
    assert.equal((await t.post(`/api/v2/job_templates/${other.id}/labels/`, { id: created.body.id, disassociate: true })).status, 204);
    assert.equal((await t.get(`/api/v2/job_templates/${other.id}/labels/`)).body.count, 0);
  });

  it('copies a template with its credentials and labels', async () => {
    const jt = await template({ extra_vars: 'x: 1\n', forks: 5 });
    const machine = await credential(machineType, { username: 'u', password: 'secret' });
    assert.equal((await t.post(`/api/v2/job_templates/${jt.id}/credentials/`, { id: machine })).status, 204);
    await t.post(`/api/v2/job_templates/${jt.id}/labels/`, { name: 'copied' });
    assert.equal((await t.get(`/api/v2/job_templates/${jt.id}/copy/`)).body.can_copy, true);
    assert.equal((await t.post(`/api/v2/job_templates/${jt.id}/copy/`, {})).status, 400);
    const copy = await t.post(`/api/v2/job_templates/${jt.id}/copy/`, { name: 'the copy' });
    assert.equal(copy.status, 201, copy.text);
    assert.notEqual(copy.body.id, jt.id);
    assert.equal(copy.body.extra_vars, 'x: 1\n');
    assert.equal(copy.body.forks, 5);
    assert.deepEqual((await t.get(`/api/v2/job_templates/${copy.body.id}/credentials/`)).body.results.map((c: any) => c.id), [machine]);
    assert.equal((await t.get(`/api/v2/job_templates/${copy.body.id}/labels/`)).body.results[0].name, 'copied');
  });

  it('describes a launch', async () => {
    const jt = await template({ extra_vars: 'a: 1\n', limit: 'web', ask_limit_on_launch: true, diff_mode: true });
    const ask = await credential(machineType, { username: 'u', password: 'ASK', become_password: 'ASK' });
    await t.post(`/api/v2/job_templates/${jt.id}/credentials/`, { id: ask });
    await t.post(`/api/v2/job_templates/${jt.id}/labels/`, { name: 'launchable' });
    const res = await t.get(`/api/v2/job_templates/${jt.id}/launch/`);
    assert.equal(res.status, 200, res.text);
    const body = res.body;
    assert.equal(body.can_start_without_user_input, false);
    assert.deepEqual(body.passwords_needed_to_start.sort(), ['become_password', 'ssh_password']);
    assert.equal(body.ask_limit_on_launch, true);
    assert.equal(body.ask_inventory_on_launch, false);
    assert.equal(body.survey_enabled, false);
    assert.deepEqual(body.variables_needed_to_start, []);
    assert.equal(body.credential_needed_to_start, false);
    assert.equal(body.inventory_needed_to_start, false);
    assert.deepEqual(body.job_template_data, { name: jt.name, id: jt.id, description: '' });
    assert.equal(body.defaults.extra_vars, 'a: 1\n');
    assert.equal(body.defaults.limit, 'web');
    assert.equal(body.defaults.diff_mode, true);
    assert.deepEqual(body.defaults.inventory, { name: 'inv', id: inventory });
    assert.deepEqual(body.defaults.credentials, [{ id: ask, name: body.defaults.credentials[0].name, credential_type: machineType, passwords_needed: ['ssh_password', 'become_password'] }]);
    assert.deepEqual(body.defaults.labels.map((l: any) => l.name), ['launchable']);
    assert.deepEqual(body.defaults.instance_groups, []);
    const plain = await template();
    assert.equal((await t.get(`/api/v2/job_templates/${plain.id}/launch/`)).body.can_start_without_user_input, true);
  });

  it('keeps instance groups in the order they were attached', async () => {
    const jt = await template();
    const url = `/api/v2/job_templates/${jt.id}/instance_groups/`;
    const [b, a] = [(await t.post('/api/v2/instance_groups/', { name: 'zz-b' })).body.id, (await t.post('/api/v2/instance_groups/', { name: 'aa-a' })).body.id];
    assert.equal((await t.post(url, { id: b })).status, 204);
    assert.equal((await t.post(url, { id: a })).status, 204);
    assert.deepEqual((await t.get(url)).body.results.map((g: any) => g.id), [b, a]);
    assert.deepEqual((await t.get(`/api/v2/job_templates/${jt.id}/launch/`)).body.defaults.instance_groups, [{ id: b, name: 'zz-b' }, { id: a, name: 'aa-a' }]);
    assert.equal((await t.post(url, { id: 999999 })).status, 404);
    assert.equal((await t.post(url, { id: b, disassociate: true })).status, 204);
    assert.deepEqual((await t.get(url)).body.results.map((g: any) => g.id), [a]);
  });

  it('outlives the deletion of its organization, without project or organization', async () => {
    const temp = (await newOrg(t)).id;
    const saved = orgId;
    orgId = temp;
    const tempProject = await syncedProject('temp');
    orgId = saved;
    const jt = await template({ project: tempProject });
    assert.equal(jt.organization, temp);
    assert.equal((await t.delete(`/api/v2/organizations/${temp}/`)).status, 204);
    const after = await t.get(`/api/v2/job_templates/${jt.id}/`);
    assert.equal(after.status, 200, after.text);
    assert.equal(after.body.project, null);
    assert.equal(after.body.organization, null);
  });

  it('deletes a template with its roles', async () => {
    const jt = await template();
    assert.equal((await t.delete(`/api/v2/job_templates/${jt.id}/`)).status, 204);
    assert.equal((await t.db.query(`SELECT count(*)::int AS n FROM roles WHERE content_type = 'job_template' AND object_id = $1`, [jt.id]))[0].n, 0);
  });
});
