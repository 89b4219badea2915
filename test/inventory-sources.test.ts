import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { createTestApp, grant, newUser, type Credentials, type TestApp } from './helpers/app.ts';
import { waitForRun } from './helpers/jobs.ts';
import { prepareSource } from '../src/run-kinds/inventory-update/prepare-source.ts';
import { sourcesDueOnLaunch } from '../src/run-kinds/inventory-update/queue.ts';

/** A PEM private key, as a GCE service account has. */
const serviceAccountKey = () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

describe('inventory sources', () => {
  let t: TestApp;
  let orgId: number;
  let inventoryId: number;
  let smartId: number;
  let projectId: number;
  const creds: Record<string, number> = {};
  let reader: Credentials & { id: number };
  let updater: Credentials & { id: number };
  let invAdmin: Credentials & { id: number };
  let privateDir: string;

  const credential = async (namespace: string, inputs: Record<string, unknown>) => {
    const type = (await t.get(`/api/v2/credential_types/?namespace=${namespace}`)).body.results[0];
    const res = await t.post('/api/v2/credentials/', { name: `${namespace} cred`, organization: orgId, credential_type: type.id, inputs });
    assert.equal(res.status, 201, res.text);
    return res.body.id as number;
  };
  const create = (body: Record<string, unknown>, as?: Credentials) => t.post(`/api/v2/inventories/${inventoryId}/inventory_sources/`, body, { as });
  const sourceCount = async () => (await t.db.query('SELECT count(*)::int AS n FROM inventory_sources'))[0].n;

  before(async () => {
    t = await createTestApp();
    privateDir = await mkdtemp(path.join(tmpdir(), 'drover-source-test-'));
    orgId = (await t.get('/api/v2/organizations/Default/')).body.id;
    inventoryId = (await t.post('/api/v2/inventories/', { name: 'Cloudy', organization: orgId })).body.id;
    smartId = (await t.post('/api/v2/inventories/', { name: 'Smart', organization: orgId, kind: 'smart', host_filter: 'name__icontains=web' })).body.id;
    await mkdir(path.join(t.env.projectsRoot, 'inventories'), { recursive: true });
    const project = await t.post('/api/v2/projects/', { name: 'Inventories', organization: orgId, local_path: 'inventories' });
    assert.equal(project.status, 201, project.text);
    projectId = project.body.id;
    creds.aws = await credential('aws', { username: 'AKIAEXAMPLE', password: 'aws-secret-value' });
    creds.gce = await credential('gce', { username: 'svc@example.iam', project: 'proj-123', ssh_key_data: serviceAccountKey() });
    creds.satellite6 = await credential('satellite6', { host: 'https://satellite.example.org', username: 'sat', password: 'sat-secret-value' });
    creds.terraform = await credential('terraform', { configuration: 'bucket = "state"\n' });
    creds.vmware = await credential('vmware', { host: 'vcenter.example.org', username: 'vm', password: 'vm-secret-value' });
    creds.insights = await credential('insights', { username: 'ins', password: 'ins-secret-value' });
    const inventory = `/api/v2/inventories/${inventoryId}/`;
    reader = await newUser(t);
    await grant(t, reader, inventory, 'read_role');
    updater = await newUser(t, { username: 'updater' });
    await grant(t, updater, inventory, 'update_role');
    invAdmin = await newUser(t);
    await grant(t, invAdmin, inventory, 'admin_role');
  });
  after(async () => {
    await t.close();
    await rm(privateDir, { recursive: true, force: true });
  });

  describe('create, read, change', () => {
    let source: any;

    it('POST in an inventory creates a source: 201 with AWX fields and links; the inventory counts it', async () => {
      const res = await create({ name: 'static', source: 'file', source_vars: { inventory: '[web]\nweb1\n' }, overwrite: true, enabled_var: 'up' });
      assert.equal(res.status, 201, res.text);
      source = res.body;
      assert.equal(source.type, 'inventory_source');
      assert.equal(source.inventory, inventoryId);
      assert.equal(source.status, 'never updated');
      for (const field of ['source_path', 'scm_branch', 'enabled_value', 'host_filter', 'limit']) assert.equal(source[field], '', field);
      assert.deepEqual(
        [source.overwrite, source.overwrite_vars, source.update_on_launch, source.update_cache_timeout, source.timeout, source.verbosity],
        [true, false, false, 0, 0, 1],
      );
      assert.deepEqual([source.last_job_run, source.last_updated, source.next_job_run, source.credential, source.source_project], [null, null, null, null, null]);
      assert.equal(source.related.named_url, '/api/v2/inventory_sources/static++Cloudy++Default/');
      assert.equal(source.related.update, `/api/v2/inventory_sources/${source.id}/update/`);
      assert.equal(source.related.inventory_updates, `/api/v2/inventory_sources/${source.id}/inventory_updates/`);
      assert.equal(source.related.hosts, `/api/v2/inventory_sources/${source.id}/hosts/`);
      assert.equal(source.summary_fields.inventory.name, 'Cloudy');
      const [inventory] = await t.db.query('SELECT total_inventory_sources, has_inventory_sources FROM inventories WHERE id = $1', [inventoryId]);
      assert.deepEqual(inventory, { total_inventory_sources: 1, has_inventory_sources: true });
      assert.equal((await t.get(`/api/v2/inventories/${inventoryId}/inventory_sources/`)).body.count, 1);
      assert.equal((await t.get(`/api/v2/inventory_sources/?source=file`)).body.count, 1);
    });

    it('PATCH changes it; the inventory cannot change', async () => {
      const res = await t.patch(source.url, { description: 'hand kept', overwrite_vars: true });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual([res.body.description, res.body.overwrite_vars], ['hand kept', true]);
      const moved = await t.patch(source.url, { inventory: smartId });
      assert.equal(moved.status, 400);
      assert.equal((await t.db.query('SELECT inventory_id FROM inventory_sources WHERE id = $1', [source.id]))[0].inventory_id, inventoryId);
    });

    it('OPTIONS lists the source kinds', async () => {
      const res = await t.request('OPTIONS', '/api/v2/inventory_sources/');
      const values = res.body.actions.POST.source.choices.map((c: string[]) => c[0]);
      for (const kind of ['file', 'scm', 'ec2', 'gce', 'azure_rm', 'vmware', 'openstack', 'rhv', 'satellite6', 'controller', 'insights', 'terraform']) {
        assert.ok(values.includes(kind), kind);
      }
    });
  });

  describe('validation', () => {
    const cases: [string, Record<string, unknown>, string, RegExp][] = [
      ['no source', { name: 'v1' }, 'source', /required/],
      ['unknown source', { name: 'v2', source: 'custom' }, 'source', /not a valid choice/],
      ['scm without project', { name: 'v3', source: 'scm', source_path: 'hosts' }, 'source_project', /Project required/],
      ['scm path leaving the project', { name: 'v4', source: 'scm', source_project: 0, source_path: '../../etc/hosts' }, 'source_path', /within the project/],
      ['scm path leaving the project from its root', { name: 'v5', source: 'scm', source_project: 0, source_path: '/../etc/hosts' }, 'source_path', /within the project/],
      ['source_path on a file source', { name: 'v6', source: 'file', source_path: 'x', source_vars: { inventory: 'a' } }, 'source_path', /not SCM/],
      ['file source without inventory', { name: 'v7', source: 'file', source_vars: { other: 1 } }, 'source_vars', /exactly one/],
      ['script without interpreter line', { name: 'v8', source: 'file', source_vars: { script: 'echo {}' } }, 'source_vars', /interpreter/],
      ['source_vars not a mapping', { name: 'v9', source: 'file', source_vars: '- a\n- b' }, 'source_vars', /JSON or YAML/],
      ['cloud source without credential', { name: 'v10', source: 'gce' }, 'credential', /required for a cloud source/],
      ['credential of another cloud', { name: 'v11', source: 'gce', credential: 'aws' }, 'credential', /matching cloud service/],
      ['insights credential on scm', { name: 'v12', source: 'scm', source_project: 0, credential: 'insights' }, 'credential', /disallowed/],
      ['bad host_filter', { name: 'v13', source: 'ec2', host_filter: '(' }, 'host_filter', /regular expression/],
      ['verbosity out of range', { name: 'v14', source: 'ec2', verbosity: 5 }, 'verbosity', /"5" is not a valid choice/],
    ];
    for (const [what, body, field, message] of cases) {
      it(`refuses ${what} with a 400 on ${field}`, async () => {
        const before = await sourceCount();
        const fixed = { ...body };
        if (fixed.source_project === 0) fixed.source_project = projectId;
        if (typeof fixed.credential === 'string') fixed.credential = creds[fixed.credential];
        const res = await create(fixed);
        assert.equal(res.status, 400, res.text);
        assert.match(String(res.body[field]?.[0]), message, res.text);
        assert.equal(await sourceCount(), before);
      });
    }

    it('refuses a source in a smart inventory', async () => {
      const res = await t.post(`/api/v2/inventories/${smartId}/inventory_sources/`, { name: 'nope', source: 'ec2' });
      assert.equal(res.status, 400);
      assert.match(res.body.inventory[0], /Smart Inventory/);
    });

    it('accepts ec2 without a credential, and a credential of the right cloud', async () => {
      assert.equal((await create({ name: 'ec2 instance role', source: 'ec2' })).status, 201);
      const gce = await create({ name: 'gce', source: 'gce', credential: creds.gce });
      assert.equal(gce.status, 201, gce.text);
      assert.equal(gce.body.credential, creds.gce);
    });
  });

  describe('access', () => {
    let source: any;

    before(async () => {
      source = (await create({ name: 'guarded', source: 'file', source_vars: { inventory: 'h1\n' } })).body;
    });

    it('an inventory reader sees sources but may not change, delete or update them', async () => {
      assert.equal((await t.get(source.url, { as: reader })).status, 200);
      assert.ok((await t.get('/api/v2/inventory_sources/', { as: reader })).body.count >= 1);
      assert.equal((await t.patch(source.url, { description: 'x' }, { as: reader })).status, 403);
      assert.equal((await t.delete(source.url, { as: reader })).status, 403);
      assert.deepEqual((await t.get(`${source.url}update/`, { as: reader })).body, { can_update: false });
      assert.equal((await t.post(`${source.url}update/`, {}, { as: reader })).status, 403);
      assert.equal((await t.db.query('SELECT count(*)::int AS n FROM unified_jobs WHERE inventory_source_id = $1', [source.id]))[0].n, 0);
      assert.equal((await create({ name: 'by reader', source: 'ec2' }, reader)).status, 403);
    });

    it('someone without access sees nothing', async () => {
      const stranger = await newUser(t);
      assert.equal((await t.get('/api/v2/inventory_sources/', { as: stranger })).body.count, 0);
      assert.equal((await t.get(source.url, { as: stranger })).status, 403);
    });

    it('the update role updates: 202 with the new inventory update', async () => {
      assert.deepEqual((await t.get(`${source.url}update/`, { as: updater })).body, { can_update: true });
      const res = await t.post(`${source.url}update/`, {}, { as: updater });
      assert.equal(res.status, 202, res.text);
      assert.equal(res.body.inventory_update, res.body.id);
      assert.equal(res.body.type, 'inventory_update');
      assert.equal(res.headers.location, `/api/v2/inventory_updates/${res.body.id}/`);
      const done = await waitForRun(t, res.body.url);
      assert.equal(done.status, 'successful', done.job_explanation);
      assert.equal(done.launched_by.name, 'updater');
    });

    it('an inventory admin manages sources but needs use of the project and may not set a script', async () => {
      const own = await create({ name: 'admin made', source: 'file', source_vars: { inventory: 'h2\n' } }, invAdmin);
      assert.equal(own.status, 201, own.text);
      assert.equal((await create({ name: 'admin scm', source: 'scm', source_project: projectId, source_path: 'hosts' }, invAdmin)).status, 403);
      await grant(t, invAdmin, `/api/v2/projects/${projectId}/`, 'use_role');
      assert.equal((await create({ name: 'admin scm', source: 'scm', source_project: projectId, source_path: 'hosts' }, invAdmin)).status, 201);
      const script = await create({ name: 'admin script', source: 'file', source_vars: { script: '#!/bin/sh\necho {}' } }, invAdmin);
      assert.equal(script.status, 403);
      assert.match(script.body.detail, /organization administrators/);
      assert.equal((await t.delete(own.body.url, { as: invAdmin })).status, 204);
    });
  });

  describe('update_inventory_sources', () => {
    it('GET tells which sources may update; POST starts every one that can', async () => {
      const other = (await t.post('/api/v2/inventories/', { name: 'Pair', organization: orgId })).body.id;
      const a = (await t.post(`/api/v2/inventories/${other}/inventory_sources/`, { name: 'a', source: 'file', source_vars: { inventory: 'pa\n' } })).body;
      const b = (await t.post(`/api/v2/inventories/${other}/inventory_sources/`, { name: 'b', source: 'file', source_vars: { inventory: 'pb\n' } })).body;
      const url = `/api/v2/inventories/${other}/update_inventory_sources/`;
      assert.deepEqual((await t.get(url)).body, [{ inventory_source: a.id, can_update: true }, { inventory_source: b.id, can_update: true }]);
      assert.equal((await t.post(url, {}, { as: reader })).status, 403);
      const res = await t.post(url, {});
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.map((r: any) => [r.inventory_source, r.status]), [[a.id, 'started'], [b.id, 'started']]);
      for (const r of res.body) assert.equal((await waitForRun(t, `/api/v2/inventory_updates/${r.inventory_update}/`)).status, 'successful');
      assert.equal((await t.get(`/api/v2/inventories/${other}/`)).body.total_hosts, 2);
      const empty = (await t.post('/api/v2/inventories/', { name: 'Empty', organization: orgId })).body.id;
      const none = await t.post(`/api/v2/inventories/${empty}/update_inventory_sources/`, {});
      assert.deepEqual([none.status, none.body], [400, { detail: 'No inventory sources to update.' }]);
    });
  });

  describe('cloud sources', () => {
    // What preparing a cloud source reads of its run: the database and the private directory.
    const sourceRun = (dir: string) => ({
      db: t.db, services: t.services, privateDir: dir, signal: new AbortController().signal,
      output: async () => undefined, exec: async () => ({ code: 1, stdout: '', stderr: 'no process in this test' }),
    });
    const job = (source: string, credential: number | null, sourceVars: Record<string, unknown> = {}) => ({
      id: 9001, inventory_source_id: 9000, source, credential_id: credential, source_vars: JSON.stringify(sourceVars), source_path: '', scm_branch: '',
    });

    it('ec2: the plugin configuration AWX generates, with the credential in the environment', async () => {
      const dir = path.join(privateDir, 'ec2');
      await mkdir(dir);
      const prepared = await prepareSource(sourceRun(dir), job('ec2', creds.aws, { regions: ['eu-west-1'], plugin: 'someone.else.plugin' }), {});
      assert.equal(prepared.inventoryPath, path.join(dir, 'inventory', 'aws_ec2.yml'));
      assert.deepEqual(YAML.parse(await readFile(prepared.inventoryPath, 'utf8')), { regions: ['eu-west-1'], plugin: 'amazon.aws.aws_ec2' });
      assert.equal((await stat(prepared.inventoryPath)).mode & 0o777, 0o600);
      assert.equal(prepared.env.AWS_ACCESS_KEY_ID, 'AKIAEXAMPLE');
      assert.equal(prepared.env.AWS_SECRET_ACCESS_KEY, 'aws-secret-value');
      assert.equal(prepared.env.ANSIBLE_INVENTORY_ENABLED, 'auto');
      assert.equal(prepared.env.ANSIBLE_INVENTORY_UNPARSED_FAILED, 'True');
      assert.equal(prepared.env.ANSIBLE_JINJA2_NATIVE, 'True');
      assert.equal(prepared.env.INVENTORY_UPDATE_ID, '9001');
      assert.ok(prepared.secrets.includes('aws-secret-value'));
    });

    it('gce: projects default to the credential\'s, the source\'s win; the service account file is written', async () => {
      const dir = path.join(privateDir, 'gce');
      await mkdir(dir);
      const prepared = await prepareSource(sourceRun(dir), job('gce', creds.gce), {});
      assert.equal(path.basename(prepared.inventoryPath), 'gcp_compute.yml');
      assert.deepEqual(YAML.parse(await readFile(prepared.inventoryPath, 'utf8')), { projects: ['proj-123'], plugin: 'google.cloud.gcp_compute' });
      const account = JSON.parse(await readFile(prepared.env.GCP_SERVICE_ACCOUNT_FILE, 'utf8'));
      assert.equal(account.client_email, 'svc@example.iam');
      assert.equal(prepared.env.GCP_AUTH_KIND, 'serviceaccount');
      const own = path.join(privateDir, 'gce2');
      await mkdir(own);
      const chosen = await prepareSource(sourceRun(own), job('gce', creds.gce, { projects: ['mine'], zones: ['z1'] }), {});
      assert.deepEqual(YAML.parse(await readFile(chosen.inventoryPath, 'utf8')), { projects: ['mine'], zones: ['z1'], plugin: 'google.cloud.gcp_compute' });
    });

    it('satellite6, terraform and vmware get what their plugins read', async () => {
      const sat = path.join(privateDir, 'sat');
      await mkdir(sat);
      const satellite = await prepareSource(sourceRun(sat), job('satellite6', creds.satellite6), {});
      assert.equal(path.basename(satellite.inventoryPath), 'foreman.yml');
      assert.deepEqual(
        [satellite.env.FOREMAN_SERVER, satellite.env.FOREMAN_USER, satellite.env.FOREMAN_PASSWORD],
        ['https://satellite.example.org', 'sat', 'sat-secret-value'],
      );
      assert.ok(satellite.secrets.includes('sat-secret-value'));
      const tf = path.join(privateDir, 'tf');
      await mkdir(tf);
      const terraform = await prepareSource(sourceRun(tf), job('terraform', creds.terraform), {});
      const config = YAML.parse(await readFile(terraform.inventoryPath, 'utf8'));
      assert.equal(config.plugin, 'cloud.terraform.terraform_state');
      assert.equal(await readFile(config.backend_config_files, 'utf8'), 'bucket = "state"\n');
      const vm = path.join(privateDir, 'vm');
      await mkdir(vm);
      const vmware = await prepareSource(sourceRun(vm), job('vmware', creds.vmware), {});
      assert.equal(path.basename(vmware.inventoryPath), 'vmware_vm_inventory.yml');
      assert.deepEqual([vmware.env.VMWARE_HOST, vmware.env.VMWARE_USER], ['vcenter.example.org', 'vm']);
    });

    it('an update that cannot reach the plugin fails with the plugin\'s own error, secrets hidden', async () => {
      const source = (await create({ name: 'aws', source: 'ec2', credential: creds.aws, source_vars: { regions: ['us-east-1'] } })).body;
      const started = await t.post(`${source.url}update/`);
      assert.equal(started.status, 202, started.text);
      const done = await waitForRun(t, started.body.url);
      assert.equal(done.status, 'failed');
      assert.match(done.job_explanation, /^ansible-inventory failed \(exit code 1\): Failed to parse .+aws_ec2\.yml with auto plugin: \S/);
      const stdout = (await t.get(`${started.body.url}stdout/?format=txt`)).text;
      assert.match(stdout, /Failed to parse [\s\S]+?aws_ec2\.yml/);
      assert.ok(!stdout.includes('aws-secret-value'));
      assert.equal(done.job_env.AWS_SECRET_ACCESS_KEY, '**********');
      assert.equal(done.job_env.AWS_ACCESS_KEY_ID, 'AKIAEXAMPLE');
      const after = (await t.get(source.url)).body;
      assert.deepEqual([after.status, after.last_update_failed, after.last_job_failed], ['failed', true, true]);
      assert.equal(after.summary_fields.last_update.id, done.id);
      assert.equal((await t.get(`/api/v2/inventories/${inventoryId}/`)).body.inventory_sources_with_failures, 1);
    });

    it('a plugin whose collection is missing reports it as unknown', async () => {
      const source = (await create({ name: 'insights', source: 'insights', credential: creds.insights })).body;
      const done = await waitForRun(t, (await t.post(`${source.url}update/`)).body.url);
      assert.equal(done.status, 'failed');
      assert.match(done.job_explanation, /redhatinsights\.insights\.insights/);
    });
  });

  describe('update on launch', () => {
    it('a job launch finds the sources due: never updated, failed, or older than their cache timeout', async () => {
      const inv = (await t.post('/api/v2/inventories/', { name: 'Launch', organization: orgId })).body.id;
      const make = async (name: string, fields: Record<string, unknown>) =>
        (await t.post(`/api/v2/inventories/${inv}/inventory_sources/`, { name, source: 'file', source_vars: { inventory: 'x\n' }, ...fields })).body.id;
      const never = await make('never', { update_on_launch: true });
      const fresh = await make('fresh', { update_on_launch: true, update_cache_timeout: 3600 });
      const stale = await make('stale', { update_on_launch: true, update_cache_timeout: 60 });
      const failed = await make('failed', { update_on_launch: true, update_cache_timeout: 3600 });
      await make('manual', { update_on_launch: false });
      await t.db.query(`UPDATE inventory_sources SET last_updated = now() - interval '10 minutes' WHERE id IN ($1, $2, $3)`, [fresh, stale, failed]);
      await t.db.query('UPDATE inventory_sources SET last_update_failed = true WHERE id = $1', [failed]);
      const due = await sourcesDueOnLaunch(t.db, inv);
      assert.deepEqual(due.map((s) => s.id), [never, stale, failed]);
    });
  });

  describe('delete', () => {
    it('takes the source out of the inventory\'s counts; its hosts stay, unlinked', async () => {
      const inv = (await t.post('/api/v2/inventories/', { name: 'Gone', organization: orgId })).body.id;
      const inventory = { all: { hosts: { g1: { a: 1 } }, children: { grp: { hosts: { g2: null } } } } };
      const source = (await t.post(`/api/v2/inventories/${inv}/inventory_sources/`, { name: 's', source: 'file', source_vars: { inventory } })).body;
      assert.equal((await waitForRun(t, (await t.post(`${source.url}update/`)).body.url)).status, 'successful');
      assert.equal((await t.get(`${source.url}hosts/`)).body.count, 2);
      assert.deepEqual((await t.get(`${source.url}groups/`)).body.results.map((g: any) => g.name), ['grp']);
      assert.equal((await t.delete(source.url)).status, 204);
      const counts = (await t.get(`/api/v2/inventories/${inv}/`)).body;
      assert.deepEqual([counts.total_inventory_sources, counts.has_inventory_sources, counts.total_hosts], [0, false, 2]);
      const hosts = await t.db.query('SELECT has_inventory_sources FROM hosts WHERE inventory_id = $1', [inv]);
      assert.deepEqual(hosts.map((h) => h.has_inventory_sources), [false, false]);
      assert.equal((await t.db.query(`SELECT count(*)::int AS n FROM unified_jobs WHERE kind = 'inventory_update' AND inventory_id = $1`, [inv]))[0].n, 0);
    });

    it('refuses while an update runs: 409', async () => {
      const source = (await create({ name: 'busy', source: 'file', source_vars: { inventory: 'b1\n' } })).body;
      const [job] = await t.db.query(
        `INSERT INTO unified_jobs (kind, name, unified_job_template_id, inventory_source_id, inventory_id, status) VALUES ('inventory_update', 'x', $1, $1, $2, 'running') RETURNING id`,
        [source.id, inventoryId],
      );
      const res = await t.delete(source.url);
      assert.equal(res.status, 409);
      assert.deepEqual(res.body.active_jobs, [{ type: 'inventory_update', id: job.id }]);
      assert.equal((await t.get(source.url)).status, 200);
      await t.db.query(`UPDATE unified_jobs SET status = 'canceled' WHERE id = $1`, [job.id]);
    });
  });
});
