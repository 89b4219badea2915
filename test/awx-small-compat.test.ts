/**
 * Small AWX 24 behaviours its clients rely on: integer filters no row can match, "" for a
 * reference, JSON text as Python writes it, named URLs with empty parts, playbooks of projects
 * allowing branch override, source paths from the project's root, the managed Galaxy credential,
 * and a credential's required inputs checked when it is used.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createTestApp, newInventory, newOrg, newProject, newUser, type TestApp, type User } from './helpers/app.ts';
import { waitForRun } from './helpers/jobs.ts';

describe('small AWX compatibility behaviours', () => {
  let t: TestApp;
  let org: number;
  let other: number;
  let member: User;
  let otherAdmin: User;
  let manualProject: number;
  let inventory: number;
  let machineType: number;
  let vaultType: number;

  before(async () => {
    t = await createTestApp();
    org = (await newOrg(t)).id;
    other = (await newOrg(t)).id;
    member = await newUser(t, { member: org });
    otherAdmin = await newUser(t, { admin: other });
    const dir = path.join(t.env.projectsRoot, `compat${org}`);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'hello.yml'), '- hosts: all\n  gather_facts: false\n  tasks: []\n');
    manualProject = (await t.post('/api/v2/projects/', { name: 'Compat manual', organization: org, local_path: `compat${org}` })).body.id;
    inventory = (await newInventory(t, org, { hosts: ['localhost'] })).id;
    machineType = (await t.get('/api/v2/credential_types/?namespace=ssh')).body.results[0].id;
    vaultType = (await t.get('/api/v2/credential_types/?namespace=vault')).body.results[0].id;
  });
  after(() => t.close());

  it('answers an empty page for integer filters past the integer range, and 400 for non-integers', async () => {
    for (const query of ['id=9999999999', 'id__gt=99999999999999999999', 'organization=99999999999', 'id__in=-1,9999999999', 'organization__id=-99999999999']) {
      const res = await t.get(`/api/v2/inventories/?${query}`);
      assert.equal(res.status, 200, query);
      assert.equal(res.body.count, 0, query);
    }
    // Past the range on the other side every row matches.
    const all = (await t.get('/api/v2/inventories/')).body.count;
    assert.equal((await t.get('/api/v2/inventories/?id__lt=99999999999')).body.count, all);
    assert.equal((await t.get(`/api/v2/inventories/?id__in=${inventory},9999999999`)).body.count, 1);
    for (const query of ['id=abc', 'id=1.5', 'organization=x', 'id__gt=', 'id__in=1,a']) {
      const res = await t.get(`/api/v2/inventories/?${query}`);
      assert.equal(res.status, 400, query);
      assert.match(JSON.stringify(res.body), /not a valid integer/, query);
    }
  });

  it('reads "" for a nullable reference as null and refuses it for a required one', async () => {
    const created = await t.post('/api/v2/inventories/', { name: 'Empty ref', organization: org, variables: '' });
    assert.equal(created.status, 201);
    const template = await t.post('/api/v2/job_templates/', { name: 'Empty inventory', project: manualProject, playbook: 'hello.yml', inventory: '', ask_inventory_on_launch: true });
    assert.equal(template.status, 201, template.text);
    assert.equal(template.body.inventory, null);
    const withInventory = await t.patch(`/api/v2/job_templates/${template.body.id}/`, { inventory });
    assert.equal(withInventory.body.inventory, inventory);
    const cleared = await t.patch(`/api/v2/job_templates/${template.body.id}/`, { inventory: '', execution_environment: '' });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(cleared.body.inventory, null);
    // A required reference given "" is null, which it may not be (AWX's words); nothing is stored.
    const teamless = await t.post('/api/v2/teams/', { name: 'No org', organization: '' });
    assert.equal(teamless.status, 400);
    assert.deepEqual(teamless.body.organization, ['This field may not be null.']);
    assert.equal((await t.get('/api/v2/teams/?name=No+org')).body.count, 0);
    const typeless = await t.post('/api/v2/credentials/', { name: 'No type', organization: org, credential_type: '' });
    assert.equal(typeless.status, 400);
    assert.deepEqual(typeless.body.credential_type, ['This field may not be null.']);
    // Other text is still no id.
    assert.equal((await t.patch(`/api/v2/job_templates/${template.body.id}/`, { inventory: 'abc' })).status, 400);
  });

  it('keeps a plain user and another organization\'s admin out when they give "" for a reference', async () => {
    const credential = (await t.post('/api/v2/credentials/', { name: 'Org machine', organization: org, credential_type: machineType, inputs: {} })).body;
    // Moving the credential out of its organization with "" is an admin's change, not theirs.
    for (const who of [member, otherAdmin]) {
      const res = await t.patch(`/api/v2/credentials/${credential.id}/`, { organization: '' }, { as: who });
      assert.equal(res.status, 403, who.username);
    }
    assert.equal((await t.get(`/api/v2/credentials/${credential.id}/`)).body.organization, org);
    // Another organization's admin naming no organization for a new credential gets no credential of ours.
    const own = await t.post('/api/v2/credentials/', { name: 'Org machine', organization: '', user: otherAdmin.id, credential_type: machineType, inputs: {} }, { as: otherAdmin });
    assert.equal(own.status, 201, own.text);
    assert.equal(own.body.organization, null);
    assert.notEqual(own.body.id, credential.id);
  });

  it('writes JSON text as Python\'s json.dumps does', async () => {
    const template = await t.post('/api/v2/job_templates/', {
      name: 'Python JSON',
      project: manualProject,
      playbook: 'hello.yml',
      inventory,
      ask_variables_on_launch: true,
      extra_vars: { foo: 'bar', n: 1, list: [1, 'é'], nested: { 'ü': null, ok: true }, emoji: '😀' },
    });
    assert.equal(template.status, 201, template.text);
    assert.equal(template.body.extra_vars, '{"foo": "bar", "n": 1, "list": [1, "\\u00e9"], "nested": {"\\u00fc": null, "ok": true}, "emoji": "\\ud83d\\ude00"}');
    const host = (await t.get(`/api/v2/inventories/${inventory}/hosts/`)).body.results[0];
    const data = await t.put(`/api/v2/hosts/${host.id}/variable_data/`, { ansible_connection: 'local', ansible_python_interpreter: '/usr/bin/python3', tag: 'ñ' });
    assert.equal(data.status, 200, data.text);
    assert.equal((await t.get(`/api/v2/hosts/${host.id}/`)).body.variables, '{"ansible_connection": "local", "ansible_python_interpreter": "/usr/bin/python3", "tag": "\\u00f1"}');
    const launch = await t.post(`/api/v2/job_templates/${template.body.id}/launch/`, { extra_vars: { foo: 'baz', more: [] } });
    assert.equal(launch.status, 201, launch.text);
    const job = await waitForRun(t, `/api/v2/jobs/${launch.body.id}/`);
    assert.equal(job.extra_vars, '{"foo": "baz", "n": 1, "list": [1, "\\u00e9"], "nested": {"\\u00fc": null, "ok": true}, "emoji": "\\ud83d\\ude00", "more": []}');
  });

  it('resolves named URLs with empty parts as AWX does', async () => {
    const global = (await t.post('/api/v2/credentials/', { name: 'Shared key', user: member.id, credential_type: machineType, inputs: {} })).body;
    assert.equal(global.related.named_url, '/api/v2/credentials/Shared%20key++Machine+ssh++/');
    const owned = (await t.post('/api/v2/credentials/', { name: 'Owned key', organization: org, credential_type: machineType, inputs: {} })).body;
    const orgName = (await t.get(`/api/v2/organizations/${org}/`)).body.name;
    // An empty part leaves its reference out: the organization's credential is found too.
    assert.equal((await t.get('/api/v2/credentials/Shared%20key++Machine+ssh++/')).body.id, global.id);
    assert.equal((await t.get('/api/v2/credentials/Owned%20key++Machine+ssh++/')).body.id, owned.id);
    assert.equal((await t.get(`/api/v2/credentials/Owned%20key++Machine+ssh++${orgName}/`)).body.id, owned.id);
    // With both, the one without an organization comes first.
    const twin = (await t.post('/api/v2/credentials/', { name: 'Owned key', user: member.id, credential_type: machineType, inputs: {} })).body;
    assert.equal((await t.get('/api/v2/credentials/Owned%20key++Machine+ssh++/')).body.id, twin.id);
    assert.equal((await t.get(`/api/v2/credentials/Owned%20key++Machine+ssh++${orgName}/`)).body.id, owned.id);
    // Every reference left out: the name alone decides.
    assert.equal((await t.get('/api/v2/credentials/Owned%20key++++/')).body.id, twin.id);
    for (const bad of ['Owned%20key++Machine+ssh', 'Owned%20key++Machine+ssh++++', 'Nope++Machine+ssh++', 'Owned%20key++Machine+net++']) {
      assert.equal((await t.get(`/api/v2/credentials/${bad}/`)).status, 404, bad);
    }
    // Another organization's admin finds the name but may not see the credential.
    assert.equal((await t.get('/api/v2/credentials/Owned%20key++Machine+ssh++/', { as: otherAdmin })).status, 403);
    assert.equal((await t.patch(`/api/v2/credentials/Owned%20key++Machine+ssh++${orgName}/`, { name: 'taken' }, { as: otherAdmin })).status, 403);
    assert.equal((await t.get(`/api/v2/credentials/${owned.id}/`)).body.name, 'Owned key');
  });

  it('takes any playbook path inside the project for a project allowing branch override, as AWX', async () => {
    const project = await newProject(t, org, { sync: false, allow_override: true });
    const template = await t.post('/api/v2/job_templates/', { name: 'Other branch', project: project.id, inventory, playbook: 'only/on/feature.yml' });
    assert.equal(template.status, 201, template.text);
    for (const playbook of ['../outside.yml', '/etc/passwd', 'a/../../b.yml']) {
      const res = await t.patch(`/api/v2/job_templates/${template.body.id}/`, { playbook });
      assert.equal(res.status, 400, playbook);
      assert.deepEqual(res.body.playbook, ['Playbook not found for project.']);
    }
    assert.deepEqual((await t.patch(`/api/v2/job_templates/${template.body.id}/`, { playbook: '' })).body.playbook, ['Must select playbook for project.']);
    // Without branch override the playbook must be one the project holds.
    const strict = await newProject(t, org, { sync: false });
    const refused = await t.post('/api/v2/job_templates/', { name: 'Strict branch', project: strict.id, inventory, playbook: 'only/on/feature.yml' });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body.playbook, ['Playbook not found for project.']);
    // A plain member may not create templates at all.
    assert.equal((await t.post('/api/v2/job_templates/', { name: 'Member', project: project.id, inventory, playbook: 'x.yml' }, { as: member })).status, 403);
  });

  it('reads a source path starting with "/" from the project\'s root', async () => {
    const source = await t.post('/api/v2/inventory_sources/', { name: 'Rooted', inventory, source: 'scm', source_project: manualProject, source_path: '/inventory/hosts.ini' });
    assert.equal(source.status, 201, source.text);
    assert.equal(source.body.source_path, 'inventory/hosts.ini');
    const patched = await t.patch(`/api/v2/inventory_sources/${source.body.id}/`, { source_path: '//hosts' });
    assert.equal(patched.body.source_path, 'hosts');
    for (const sourcePath of ['/../etc/passwd', '../x']) {
      const res = await t.patch(`/api/v2/inventory_sources/${source.body.id}/`, { source_path: sourcePath });
      assert.equal(res.status, 400, sourcePath);
      assert.match(res.body.source_path[0], /stay within the project/);
    }
    assert.equal((await t.get(`/api/v2/inventory_sources/${source.body.id}/`)).body.source_path, 'hosts');
    assert.equal((await t.patch(`/api/v2/inventory_sources/${source.body.id}/`, { source_path: '/x' }, { as: otherAdmin })).status, 403);
  });

  it('has the managed Ansible Galaxy credential, the Default organization\'s Galaxy credential', async () => {
    const found = await t.get('/api/v2/credentials/?name=Ansible+Galaxy');
    assert.equal(found.body.count, 1);
    const galaxy = found.body.results[0];
    assert.equal(galaxy.managed, true);
    assert.equal(galaxy.organization, null);
    assert.equal(galaxy.kind, 'galaxy_api_token');
    assert.deepEqual(galaxy.inputs, { url: 'https://galaxy.ansible.com/' });
    assert.equal(galaxy.related.named_url, '/api/v2/credentials/Ansible%20Galaxy++Ansible%20Galaxy%2FAutomation%20Hub%20API%20Token+galaxy++/');
    assert.equal((await t.get(galaxy.related.named_url)).body.id, galaxy.id);
    const defaults = await t.get('/api/v2/organizations/Default/galaxy_credentials/');
    assert.deepEqual(defaults.body.results.map((c: { id: number }) => c.id), [galaxy.id]);
    // Managed: nobody changes or deletes it.
    assert.equal((await t.patch(`/api/v2/credentials/${galaxy.id}/`, { name: 'Mine' })).status, 403);
    assert.equal((await t.delete(`/api/v2/credentials/${galaxy.id}/`)).status, 403);
    assert.equal((await t.delete(`/api/v2/credentials/${galaxy.id}/`, { as: otherAdmin })).status, 403);
    // Another start makes no second one.
    await t.db.query('SELECT ensure_galaxy_credential()');
    assert.equal((await t.get('/api/v2/credentials/?name=Ansible+Galaxy')).body.count, 1);
  });

  it('checks a credential\'s required inputs when it is used, not when it is saved', async () => {
    const vault = await t.post('/api/v2/credentials/', { name: 'Empty vault', organization: org, credential_type: vaultType, inputs: {} });
    assert.equal(vault.status, 201, vault.text);
    assert.equal((await t.patch(`/api/v2/credentials/${vault.body.id}/`, { description: 'still empty', inputs: { vault_id: 'dev' } })).status, 200);
    const template = (await t.post('/api/v2/job_templates/', { name: 'Needs vault', project: manualProject, playbook: 'hello.yml', inventory })).body;
    assert.equal((await t.post(`/api/v2/job_templates/${template.id}/credentials/`, { id: vault.body.id })).status, 204);
    const jobsBefore = (await t.get('/api/v2/jobs/')).body.count;
    const launch = await t.post(`/api/v2/job_templates/${template.id}/launch/`, {});
    assert.equal(launch.status, 400);
    assert.deepEqual(launch.body.credentials, ['Job cannot start because Credential Empty vault does not provide one or more required fields (vault_password).']);
    assert.equal((await t.get('/api/v2/jobs/')).body.count, jobsBefore);
    // Given its input, it is used.
    await t.patch(`/api/v2/credentials/${vault.body.id}/`, { inputs: { vault_id: 'dev', vault_password: 'secret' } });
    const started = await t.post(`/api/v2/job_templates/${template.id}/launch/`, {});
    assert.equal(started.status, 201, started.text);
    await waitForRun(t, `/api/v2/jobs/${started.body.id}/`);
    // Another organization's admin may neither read nor use the empty credential.
    const empty = (await t.post('/api/v2/credentials/', { name: 'Empty again', organization: org, credential_type: vaultType, inputs: {} })).body;
    assert.equal((await t.get(`/api/v2/credentials/${empty.id}/`, { as: otherAdmin })).status, 403);
    const foreign = await t.post('/api/v2/job_templates/', { name: 'Foreign', project: manualProject, playbook: 'hello.yml', inventory }, { as: otherAdmin });
    assert.equal(foreign.status, 403);
  });

  it('refuses an ad hoc command whose machine credential misses a required input', async () => {
    await t.db.query(`UPDATE credential_types SET inputs = jsonb_set(inputs, '{required}', '["username"]') WHERE namespace = 'ssh'`);
    try {
      const sshType = (await t.get('/api/v2/credential_types/?namespace=ssh')).body.results[0].id;
      const machine = (await t.post('/api/v2/credentials/', { name: 'Nameless machine', organization: org, credential_type: sshType, inputs: {} })).body;
      const before = (await t.get('/api/v2/ad_hoc_commands/')).body.count;
      const res = await t.post('/api/v2/ad_hoc_commands/', { inventory, credential: machine.id, module_name: 'ping' });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body.credential, ['Ad Hoc Command cannot start because Credential Nameless machine does not provide one or more required fields (username).']);
      assert.equal((await t.get('/api/v2/ad_hoc_commands/')).body.count, before);
    } finally {
      await t.db.query(`UPDATE credential_types SET inputs = inputs - 'required' WHERE namespace = 'ssh'`);
    }
  });

  it('fails an inventory sync and a project sync using a credential missing a required input', async () => {
    const awsType = (await t.get('/api/v2/credential_types/?namespace=aws')).body.results[0].id;
    const aws = await t.post('/api/v2/credentials/', { name: 'Half AWS', organization: org, credential_type: awsType, inputs: { username: 'AKIA' } });
    assert.equal(aws.status, 201, aws.text);
    const source = await t.post('/api/v2/inventory_sources/', { name: 'Half AWS source', inventory, source: 'ec2', credential: aws.body.id });
    assert.equal(source.status, 201, source.text);
    const update = await t.post(`/api/v2/inventory_sources/${source.body.id}/update/`, {});
    assert.equal(update.status, 400);
    assert.deepEqual(update.body.credential, ['Inventory Update cannot start because Credential Half AWS does not provide one or more required fields (password).']);
    assert.equal((await t.get(`/api/v2/inventory_sources/${source.body.id}/inventory_updates/`)).body.count, 0);
    // No managed source control input is required: the rule is shown on a copy of the type requiring one.
    await t.db.query(`UPDATE credential_types SET inputs = jsonb_set(inputs, '{required}', '["username"]') WHERE namespace = 'scm'`);
    try {
      const scmType = (await t.get('/api/v2/credential_types/?namespace=scm')).body.results[0].id;
      const scm = (await t.post('/api/v2/credentials/', { name: 'Nameless git', organization: org, credential_type: scmType, inputs: {} })).body;
      const project = await newProject(t, org, { sync: false, credential: scm.id });
      await waitForRun(t, (await t.get(`/api/v2/projects/${project.id}/project_updates/`)).body.results[0]?.url ?? `/api/v2/projects/${project.id}/`);
      const sync = await t.post(`/api/v2/projects/${project.id}/update/`, {});
      assert.equal(sync.status, 400);
      assert.deepEqual(sync.body.credential, ['Project Update cannot start because Credential Nameless git does not provide one or more required fields (username).']);
    } finally {
      await t.db.query(`UPDATE credential_types SET inputs = inputs - 'required' WHERE namespace = 'scm'`);
    }
  });
});
