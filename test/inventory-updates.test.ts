import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, grant, newUser, type Credentials, type TestApp } from './helpers/app.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { eventually, waitForRun } from './helpers/jobs.ts';

const SITE_V1 = `all:
  vars:
    dc: east
  children:
    web:
      vars: {http_port: 80}
      hosts:
        web1: {ansible_host: 10.0.0.1, state: running}
        web2: {state: stopped}
      children:
        web_canary:
          hosts:
            web3: {state: running}
    db:
      hosts:
        db1: {state: running, port: 5432}
`;

// web2 and web_canary are gone, web3 moved into web, db1 changed, app1 and its group are new.
const SITE_V2 = `all:
  children:
    web:
      vars: {http_port: 8080}
      hosts:
        web1: {ansible_host: 10.0.0.1, state: running}
        web3: {state: running}
    db:
      hosts:
        db1: {state: stopped, port: 6432}
    app:
      hosts:
        app1: {state: running}
`;

const DYNAMIC = `#!/bin/sh
if [ "$1" = "--list" ]; then
  printf '{"regional": {"hosts": ["%s-host"]}, "_meta": {"hostvars": {}}}' "$REGION"
else
  echo '{}'
fi
`;

describe('inventory updates', () => {
  let t: TestApp;
  let repo: GitRepository;
  let orgId: number;
  let inventoryId: number;
  let projectId: number;
  let source: any;
  let reader: Credentials & { id: number };

  const updateProject = async () => {
    const res = await t.post(`/api/v2/projects/${projectId}/update/`);
    assert.equal(res.status, 202, res.text);
    assert.equal((await waitForRun(t, res.body.url)).status, 'successful');
  };
  const runUpdate = async (src: { url: string }, expected = 'successful') => {
    const res = await t.post(`${src.url}update/`);
    assert.equal(res.status, 202, res.text);
    const done = await waitForRun(t, res.body.url);
    assert.equal(done.status, expected, `${done.job_explanation}\n${(await t.get(`${res.body.url}stdout/?format=txt`)).text}`);
    return done;
  };
  const hosts = async () =>
    Object.fromEntries((await t.get(`/api/v2/inventories/${inventoryId}/hosts/?page_size=100`)).body.results.map((h: any) => [h.name, h]));
  const hostVars = (h: any) => JSON.parse(h.variables || '{}');
  const groupNames = async () => (await t.get(`/api/v2/inventories/${inventoryId}/groups/?order_by=name`)).body.results.map((g: any) => g.name);
  const groupId = async (name: string) => (await t.get(`/api/v2/inventories/${inventoryId}/groups/?name=${name}`)).body.results[0]?.id;
  const members = async (group: string) =>
    (await t.get(`/api/v2/groups/${await groupId(group)}/hosts/?order_by=name`)).body.results.map((h: any) => h.name);
  const children = async (group: string) =>
    (await t.get(`/api/v2/groups/${await groupId(group)}/children/?order_by=name`)).body.results.map((g: any) => g.name);

  before(async () => {
    t = await createTestApp();
    orgId = (await t.get('/api/v2/organizations/Default/')).body.id;
    repo = await makeRepository({
      'inventory/site.yml': SITE_V1,
      'inventory/group_vars/db.yml': 'backup: nightly\n',
      'scripts/dynamic.sh': { content: DYNAMIC, mode: 0o755 },
    });
    await repo.branch('staging', { 'inventory/site.yml': 'all:\n  hosts:\n    staging1:\n' });
    const project = await t.post('/api/v2/projects/', { name: 'Site', organization: orgId, scm_type: 'git', scm_url: `file://${repo.bare}`, allow_override: true });
    assert.equal(project.status, 201, project.text);
    projectId = project.body.id;
    await eventually(async () => ['successful', 'failed', 'error'].includes((await t.get(`/api/v2/projects/${projectId}/`)).body.status));
    await updateProject();
    inventoryId = (await t.post('/api/v2/inventories/', { name: 'Site', organization: orgId })).body.id;
    reader = await newUser(t);
    await grant(t, reader, `/api/v2/inventories/${inventoryId}/`, 'read_role');
  });
  after(async () => {
    await t.close();
    await repo.remove();
  });

  describe('a YAML inventory from a project', () => {
    it('imports hosts, groups, nested children and variables; the inventory counts them', async () => {
      const res = await t.post(`/api/v2/inventories/${inventoryId}/inventory_sources/`, {
        name: 'site', source: 'scm', source_project: projectId, source_path: 'inventory/site.yml', enabled_var: 'state', enabled_value: 'running',
      });
      assert.equal(res.status, 201, res.text);
      source = res.body;
      const done = await runUpdate(source);
      assert.equal(done.source_project, projectId);
      assert.equal(done.scm_revision, await repo.head());
      const [project] = await t.db.query('SELECT last_job_id FROM projects WHERE id = $1', [projectId]);
      assert.equal(done.source_project_update, project.last_job_id);
      const h = await hosts();
      assert.deepEqual(Object.keys(h).sort(), ['db1', 'web1', 'web2', 'web3']);
      assert.deepEqual(hostVars(h.web1), { ansible_host: '10.0.0.1', state: 'running' });
      assert.deepEqual([h.web1.enabled, h.web2.enabled, h.web3.enabled], [true, false, true]);
      assert.deepEqual(await groupNames(), ['db', 'web', 'web_canary']);
      assert.deepEqual(await members('web'), ['web1', 'web2']);
      assert.deepEqual(await children('web'), ['web_canary']);
      const db = (await t.get(`/api/v2/groups/${await groupId('db')}/`)).body;
      assert.deepEqual(JSON.parse(db.variables), { backup: 'nightly' }, 'group_vars next to the inventory come with it');
      const inventory = (await t.get(`/api/v2/inventories/${inventoryId}/`)).body;
      assert.deepEqual(
        [inventory.total_hosts, inventory.total_groups, inventory.total_inventory_sources, inventory.has_inventory_sources, inventory.inventory_sources_with_failures],
        [4, 3, 1, true, 0],
      );
      assert.deepEqual(JSON.parse(inventory.variables), { dc: 'east' });
      assert.equal((await t.get(`${source.url}hosts/`)).body.count, 4);
      assert.equal((await t.get(`${source.url}groups/`)).body.count, 3);
      const stdout = (await t.get(`${done.url}stdout/?format=txt`)).text;
      assert.match(stdout, /Hosts: 4 added, 0 updated, 0 unchanged, 0 removed/);
      assert.match(stdout, /Groups: 3 added/);
      const refreshed = (await t.get(source.url)).body;
      assert.deepEqual([refreshed.status, refreshed.last_update_failed, refreshed.summary_fields.last_update.id], ['successful', false, done.id]);
    });

    it('overwrite false, overwrite_vars false: only adds and merges; hand-made hosts are adopted', async () => {
      const manual = await t.post(`/api/v2/inventories/${inventoryId}/hosts/`, { name: 'app1', variables: 'owner: alice' });
      assert.equal(manual.status, 201, manual.text);
      const db1 = (await hosts()).db1;
      assert.equal((await t.patch(db1.url, { variables: JSON.stringify({ ...hostVars(db1), note: 'by hand' }) })).status, 200);
      await repo.commit({ 'inventory/site.yml': SITE_V2 });
      await updateProject();
      const done = await runUpdate(source);
      assert.equal(done.scm_revision, await repo.head());
      const h = await hosts();
      assert.deepEqual(Object.keys(h).sort(), ['app1', 'db1', 'web1', 'web2', 'web3']);
      assert.equal(h.app1.id, manual.body.id, 'adopted, not duplicated');
      assert.deepEqual(hostVars(h.app1), { owner: 'alice', state: 'running' });
      assert.deepEqual(hostVars(h.db1), { state: 'stopped', port: 6432, note: 'by hand' });
      assert.equal(h.db1.enabled, false);
      assert.deepEqual(await groupNames(), ['app', 'db', 'web', 'web_canary']);
      assert.deepEqual(await members('web'), ['web1', 'web2', 'web3']);
      assert.deepEqual(await children('web'), ['web_canary']);
      assert.equal((await t.get(`/api/v2/inventories/${inventoryId}/`)).body.total_hosts, 5);
    });

    it('overwrite true, overwrite_vars true: what the source dropped goes, variables are the source\'s', async () => {
      const keep = await t.post(`/api/v2/inventories/${inventoryId}/hosts/`, { name: 'handmade', variables: 'x: 1' });
      assert.equal((await t.post(`/api/v2/groups/${await groupId('web')}/hosts/`, { id: keep.body.id })).status, 204);
      const web = (await t.get(`/api/v2/groups/${await groupId('web')}/`)).body;
      assert.equal((await t.patch(web.url, { variables: 'http_port: 8080\nmanual: yes' })).status, 200);
      assert.equal((await t.patch(source.url, { overwrite: true, overwrite_vars: true })).status, 200);
      const done = await runUpdate(source);
      const h = await hosts();
      assert.deepEqual(Object.keys(h).sort(), ['app1', 'db1', 'handmade', 'web1', 'web3']);
      assert.deepEqual(hostVars(h.app1), { state: 'running' });
      assert.deepEqual(hostVars(h.db1), { state: 'stopped', port: 6432 });
      assert.deepEqual(await groupNames(), ['app', 'db', 'web']);
      assert.deepEqual(await members('web'), ['handmade', 'web1', 'web3'], 'the hand-made member stays');
      assert.deepEqual(JSON.parse((await t.get(`/api/v2/groups/${await groupId('web')}/`)).body.variables), { http_port: 8080 });
      const stdout = (await t.get(`${done.url}stdout/?format=txt`)).text;
      assert.match(stdout, /Hosts: 0 added, 2 updated, 2 unchanged, 1 removed/);
      assert.match(stdout, /Groups: 0 added, 1 updated, 2 unchanged, 1 removed/);
      const inventory = (await t.get(`/api/v2/inventories/${inventoryId}/`)).body;
      assert.deepEqual([inventory.total_hosts, inventory.total_groups], [5, 3]);
    });

    it('another branch of the project, when the source names one', async () => {
      const res = await t.post(`/api/v2/inventories/${inventoryId}/inventory_sources/`, {
        name: 'staging', source: 'scm', source_project: projectId, source_path: 'inventory/site.yml', scm_branch: 'staging',
      });
      assert.equal(res.status, 201, res.text);
      const done = await runUpdate(res.body);
      assert.equal(done.scm_revision, await repo.head('staging'));
      assert.deepEqual((await t.get(`${res.body.url}hosts/`)).body.results.map((h: any) => h.name), ['staging1']);
    });

    it('source_vars reach an inventory script as environment variables; limit narrows the hosts', async () => {
      const script = await t.post(`/api/v2/inventories/${inventoryId}/inventory_sources/`, {
        name: 'dynamic', source: 'scm', source_project: projectId, source_path: 'scripts/dynamic.sh', source_vars: { REGION: 'eu', PATH: '/nowhere' },
      });
      assert.equal(script.status, 201, script.text);
      await runUpdate(script.body);
      assert.deepEqual((await t.get(`${script.body.url}hosts/`)).body.results.map((h: any) => h.name), ['eu-host']);
      const limited = await t.post(`/api/v2/inventories/${inventoryId}/inventory_sources/`, {
        name: 'limited', source: 'scm', source_project: projectId, source_path: 'inventory/site.yml', limit: 'web:!web3',
      });
      await runUpdate(limited.body);
      assert.deepEqual((await t.get(`${limited.body.url}hosts/`)).body.results.map((h: any) => h.name), ['web1']);
    });

    it('the task environment (SVC_TASK_ENV) reaches the run and wins over source_vars, as in AWX', async () => {
      assert.equal((await t.patch('/api/v2/settings/jobs/', { SVC_TASK_ENV: { REGION: 'us' } })).status, 200);
      try {
        const res = await t.post(`/api/v2/inventories/${inventoryId}/inventory_sources/`, {
          name: 'task env', source: 'scm', source_project: projectId, source_path: 'scripts/dynamic.sh', source_vars: { REGION: 'eu' },
        });
        await runUpdate(res.body);
        assert.deepEqual((await t.get(`${res.body.url}hosts/`)).body.results.map((h: any) => h.name), ['us-host']);
      } finally {
        await t.patch('/api/v2/settings/jobs/', { SVC_TASK_ENV: {} });
      }
    });

    it('a source timeout stops the update', async () => {
      const res = await t.post(`/api/v2/inventories/${inventoryId}/inventory_sources/`, {
        name: 'too slow', source: 'file', timeout: 1, source_vars: { script: '#!/bin/sh\nsleep 30\necho "{}"\n' },
      });
      const done = await runUpdate(res.body, 'failed');
      assert.equal(done.job_explanation, 'Job terminated due to timeout');
      assert.ok(done.elapsed < 15);
    });

    it('fails clearly when the path is not in the project, or the project was never updated', async () => {
      const missing = await t.post(`/api/v2/inventories/${inventoryId}/inventory_sources/`, {
        name: 'missing', source: 'scm', source_project: projectId, source_path: 'inventory/nope.yml',
      });
      const failed = await runUpdate(missing.body, 'failed');
      assert.match(failed.job_explanation, /"inventory\/nope.yml" does not exist in the project "Site"/);
      const broken = await t.post('/api/v2/projects/', { name: 'Broken', organization: orgId, scm_type: 'git', scm_url: `file://${repo.root}/nonexistent.git` });
      await eventually(async () => ['failed', 'error'].includes((await t.get(`/api/v2/projects/${broken.body.id}/`)).body.status));
      const never = await t.post(`/api/v2/inventories/${inventoryId}/inventory_sources/`, {
        name: 'never', source: 'scm', source_project: broken.body.id, source_path: 'hosts',
      });
      const result = await runUpdate(never.body, 'failed');
      assert.match(result.job_explanation, /project "Broken" has never been updated/);
      assert.equal((await t.get(`/api/v2/inventories/${inventoryId}/`)).body.inventory_sources_with_failures, 3, "the timed-out source and these two");
    });
  });

  describe('the inventory_updates resource', () => {
    it('lists and shows updates with AWX\'s fields, per source too', async () => {
      const all = (await t.get('/api/v2/inventory_updates/')).body;
      assert.ok(all.count >= 3);
      const mine = (await t.get(`${source.url}inventory_updates/`)).body;
      assert.equal(mine.count, 3);
      const detail = (await t.get(mine.results[0].url)).body;
      for (const field of ['source', 'source_path', 'source_vars', 'overwrite', 'overwrite_vars', 'enabled_var', 'enabled_value', 'host_filter', 'limit',
        'inventory', 'inventory_source', 'source_project_update', 'scm_revision', 'job_explanation', 'launch_type', 'elapsed', 'job_args', 'launched_by']) {
        assert.ok(field in detail, field);
      }
      assert.deepEqual([detail.source, detail.source_path, detail.overwrite, detail.inventory_source], ['scm', 'inventory/site.yml', true, source.id]);
      assert.equal(detail.unified_job_template, source.id);
      assert.equal((await t.get(`/api/v2/inventory_updates/?inventory_source=${source.id}&status=successful`)).body.count, 3);
      assert.equal((await t.get(`/api/v2/unified_jobs/?type=inventory_update`)).body.count, all.count);
      const events = (await t.get(`${detail.url}events/`)).body;
      assert.ok(events.count > 0);
      assert.equal(events.results[0].type, 'inventory_update_event');
    });

    it('readers of the inventory see its updates but may neither cancel nor delete them; strangers see none', async () => {
      const update = (await t.get(`${source.url}inventory_updates/`)).body.results[0];
      assert.equal((await t.get(update.url, { as: reader })).status, 200);
      assert.equal((await t.delete(update.url, { as: reader })).status, 403);
      assert.equal((await t.post(`${update.url}cancel/`, {}, { as: reader })).status, 403);
      const stranger = await newUser(t);
      assert.equal((await t.get('/api/v2/inventory_updates/', { as: stranger })).body.count, 0);
      assert.equal((await t.get(update.url, { as: stranger })).status, 403);
    });

    it('cancel stops a running update', async () => {
      const slow = await t.post(`/api/v2/inventories/${inventoryId}/inventory_sources/`, {
        name: 'slow', source: 'file', source_vars: { script: '#!/bin/sh\nsleep 30\necho "{}"\n' },
      });
      assert.equal(slow.status, 201, slow.text);
      const started = await t.post(`${slow.body.url}update/`);
      await eventually(async () => (await t.get(started.body.url)).body.status === 'running');
      assert.deepEqual((await t.get(`${started.body.url}cancel/`)).body, { can_cancel: true });
      assert.equal((await t.delete(started.body.url)).status, 403, 'a running update cannot be deleted');
      assert.equal((await t.post(`${started.body.url}cancel/`)).status, 202);
      const done = await waitForRun(t, started.body.url, 20_000);
      assert.equal(done.status, 'canceled');
      assert.ok(done.elapsed < 25);
      assert.equal((await t.get(slow.body.url)).body.status, 'canceled');
    });

    it('DELETE removes a finished update', async () => {
      const update = (await t.get(`${source.url}inventory_updates/`)).body.results.at(-1);
      assert.equal((await t.delete(update.url)).status, 204);
      assert.equal((await t.get(update.url)).status, 404);
      assert.equal((await t.db.query('SELECT count(*)::int AS n FROM unified_jobs WHERE id = $1', [update.id]))[0].n, 0);
    });
  });
});
