import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { newHost, newInventory, newJobTemplate, newProject, newSchedule, newWorkflow } from './helpers/factories.ts';
import { newCatalogItem } from './helpers/catalog.ts';
import { waitForRun } from './helpers/jobs.ts';
import { provisionTenant } from './helpers/tenants.ts';

/**
 * Recalculating a tenant's usage, and deleting a tenant (docs/tenants.md): 409 without confirm or
 * while a run of its organization is active; otherwise its organization and everything in it go in
 * one transaction, its checkouts after, and the activity stream keeps the record.
 */
describe('tenants: usage and deletion', () => {
  let t: TestApp;
  let doomed: any;
  let kept: any;
  let project: any;
  let inventory: any;
  let template: any;
  let job: any;
  let checkout: string;
  let keptInventory: any;
  /** The ids of what the doomed tenant owns, by table. */
  const owned: Record<string, number[]> = {};

  const count = async (sql: string, params: unknown[] = []) => (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params))[0].n;

  before(async () => {
    t = await createTestApp();
    doomed = await provisionTenant(t, { name: 'Doomed', quota: { max_hosts: 10 }, branding: { custom_domain: 'doomed.example' } });
    kept = await provisionTenant(t, { name: 'Kept' });
    const org = doomed.organization;
    project = await newProject(t, org);
    checkout = path.join(t.env.projectsRoot, project.local_path);
    inventory = await newInventory(t, org, { hosts: ['web1', 'web2'] });
    const group = (await t.post('/api/v2/groups/', { name: 'webs', inventory: inventory.id })).body;
    const machine = (await t.get('/api/v2/credential_types/?namespace=ssh')).body.results[0].id;
    const credential = (await t.post('/api/v2/credentials/', { name: 'doomed-machine', organization: org, credential_type: machine, inputs: { username: 'u' } })).body;
    template = await newJobTemplate(t, { project: project.id, inventory: inventory.id });
    job = await waitForRun(t, (await t.post(`/api/v2/job_templates/${template.id}/launch/`, {})).body.url);
    assert.equal(job.status, 'successful', job.result_traceback);
    const schedule = await newSchedule(t, template.id);
    const workflow = await newWorkflow(t, org, { nodes: { deploy: { template: template.id }, gate: {} } });
    const [approval] = await t.db.query<{ id: number }>('SELECT unified_job_template_id AS id FROM workflow_job_template_nodes WHERE id = $1', [workflow.nodes.gate]);
    const notification = (await t.post('/api/v2/notification_templates/', {
      name: 'doomed-hook', organization: org, notification_type: 'webhook', notification_configuration: { url: 'https://hooks.example/x', headers: {} },
    })).body;
    const label = (await t.post('/api/v2/labels/', { name: 'doomed-label', organization: org })).body;
    const item = await newCatalogItem(t, org, { job_template: template.id }, { name: 'doomed-item' });
    Object.assign(owned, {
      organizations: [org], projects: [project.id], inventories: [inventory.id], groups: [group.id], credentials: [credential.id], job_templates: [template.id],
      schedules: [schedule.id], workflow_job_templates: [workflow.id], workflow_approval_templates: [approval.id], notification_templates: [notification.id], labels: [label.id],
      service_catalog_items: [item.id], teams: [doomed.team], tenants: [doomed.id],
    });
    for (const table of Object.keys(owned)) assert.ok(owned[table][0], `${table} made`);
    // The other tenant's content, which must stay.
    keptInventory = await newInventory(t, kept.organization, { hosts: ['db1'] });
    await t.db.query(
      `INSERT INTO tenant_quota_events (tenant_id, organization_id, quota_kind, decision, quota_limit, usage) VALUES ($1, $2, 'max_hosts', 'allow', 10, 2), ($3, $4, 'max_hosts', 'allow', 5, 1)`,
      [doomed.id, doomed.organization, kept.id, kept.organization],
    );
  });
  after(async () => {
    await t?.close();
  });

  it('recalculate/ counts hosts, active runs and storage: checkouts on disk and stored output', async () => {
    const outputBytes = (await t.db.query<{ n: number }>(
      `SELECT coalesce(sum(octet_length(stdout)), 0)::float8 AS n FROM unified_job_events WHERE unified_job_id IN (SELECT id FROM unified_jobs WHERE organization_id = $1)`,
      [doomed.organization],
    ))[0].n;
    assert.ok(outputBytes > 0, 'the runs stored output');
    assert.ok(existsSync(checkout), checkout);
    const res = await t.post(`/api/v2/tenants/${doomed.id}/recalculate/`);
    assert.equal(res.status, 200, res.text);
    const { usage } = res.body;
    assert.equal(usage.hosts, 2);
    assert.equal(usage.concurrent_jobs, 0);
    // The checkout holds at least the playbook, on top of the output.
    assert.ok(usage.storage_bytes > outputBytes, `${usage.storage_bytes} > ${outputBytes}`);
    assert.equal(usage.storage_mb, Math.round((usage.storage_bytes / 1048576) * 100) / 100);
    assert.ok(Date.parse(usage.recalculated) > Date.now() - 60_000);
    assert.deepEqual((await t.get(`/api/v2/tenants/${doomed.id}/recalculate/`)).body.usage, usage);
    // Another tenant's hosts are its own.
    assert.equal((await t.post(`/api/v2/tenants/${kept.id}/recalculate/`)).body.usage.hosts, 1);
    await newHost(t, inventory, { name: 'web3' });
    assert.equal((await t.post(`/api/v2/tenants/${doomed.id}/recalculate/`)).body.usage.hosts, 3);
  });

  it('its organization is not deleted through /organizations/: 403 for its admin, 409 for a superuser', async () => {
    const url = `/api/v2/organizations/${doomed.organization}/`;
    assert.equal((await t.delete(url, { as: doomed.admin })).status, 403);
    const res = await t.delete(url);
    assert.equal(res.status, 409);
    assert.match(res.body.detail, new RegExp(`/api/v2/tenants/${doomed.id}/\\?confirm=true`));
    assert.equal(await count('organizations WHERE id = $1', [doomed.organization]), 1);
    assert.equal(await count('projects WHERE id = $1', [project.id]), 1);
  });

  it('DELETE without ?confirm=true is 409 and removes nothing', async () => {
    for (const query of ['', '?confirm=false', '?confirm=']) {
      const res = await t.delete(`/api/v2/tenants/${doomed.id}/${query}`);
      assert.equal(res.status, 409, query);
      assert.equal(typeof res.body.detail, 'string');
    }
    assert.equal(await count('organizations WHERE id = $1', [doomed.organization]), 1);
    assert.equal(await count('tenants WHERE id = $1', [doomed.id]), 1);
  });

  it('DELETE is 409 while a run of the organization is active, whatever its status before it ends', async () => {
    for (const status of ['new', 'pending', 'waiting', 'running']) {
      const [run] = await t.db.query<{ id: number }>(
        `INSERT INTO unified_jobs (kind, name, status, organization_id, inventory_id, playbook) VALUES ('job', 'busy', $1, $2, $3, 'hello.yml') RETURNING id`,
        [status === 'new' ? 'new' : 'canceled', doomed.organization, inventory.id],
      );
      // Stored as it would stand, without the dispatcher picking it up.
      if (status !== 'new') await t.db.query(`UPDATE unified_jobs SET status = $1 WHERE id = $2`, [status, run.id]);
      const res = await t.delete(`/api/v2/tenants/${doomed.id}/?confirm=true`);
      assert.equal(res.status, 409, `${status}: ${res.text}`);
      assert.deepEqual(res.body.active_jobs, [{ type: 'job', id: run.id }]);
      await t.db.query(`UPDATE unified_jobs SET status = 'canceled' WHERE id = $1`, [run.id]);
    }
    assert.equal(await count('organizations WHERE id = $1', [doomed.organization]), 1);
  });

  it('DELETE ?confirm=true removes the organization and everything in it, the lone admin and the checkout; the rest stays', async () => {
    const runs = (await t.db.query<{ id: number }>('SELECT id FROM unified_jobs WHERE organization_id = $1', [doomed.organization])).map((r) => r.id);
    assert.ok(runs.length >= 3, 'the project update, the job and the canceled ones');
    const keptBefore = (await t.get(`/api/v2/tenants/${kept.id}/`)).body;
    const res = await t.delete(`/api/v2/tenants/${doomed.id}/?confirm=true`);
    assert.equal(res.status, 204, res.text);

    for (const [table, ids] of Object.entries(owned)) assert.equal(await count(`${table} WHERE id = ANY($1::integer[])`, [ids]), 0, table);
    assert.equal(await count('hosts WHERE inventory_id = $1', [inventory.id]), 0);
    assert.equal(await count('unified_jobs WHERE id = ANY($1::integer[])', [runs]), 0);
    assert.equal(await count('unified_job_events WHERE unified_job_id = ANY($1::integer[])', [runs]), 0);
    assert.equal(await count('tenant_usage WHERE tenant_id = $1', [doomed.id]), 0);
    assert.equal(await count('tenant_quota_events WHERE tenant_id = $1', [doomed.id]), 0);
    assert.equal(await count('users WHERE id = $1', [doomed.admin_user]), 0, 'the admin belonged to nothing else');
    // No role is left of what went.
    const roleOwners = Object.entries({ organization: owned.organizations, project: owned.projects, inventory: owned.inventories, credential: owned.credentials,
      job_template: owned.job_templates, workflow_job_template: owned.workflow_job_templates, team: owned.teams });
    for (const [type, ids] of roleOwners) assert.equal(await count('roles WHERE content_type = $1 AND object_id = ANY($2::integer[])', [type, ids]), 0, type);
    assert.equal(existsSync(checkout), false, 'the checkout is removed after the commit');
    // The activity stream keeps the record.
    const record = (await t.get(`/api/v2/activity_stream/?object1=tenant&operation=delete`)).body.results.find((e: any) => e.object1_id === doomed.id || e.changes?.organization_name === 'Doomed');
    assert.ok(record, 'the deletion is recorded');
    assert.equal(record.changes.organization_name, 'Doomed');
    assert.ok(record.changes.removed.runs >= 3);
    assert.equal((await t.get(`/api/v2/tenants/${doomed.id}/`)).status, 404);
    assert.equal((await t.get('/api/v2/branding/?host=doomed.example', { as: null })).status, 404);
    // The other tenant is untouched.
    const keptAfter = (await t.get(`/api/v2/tenants/${kept.id}/`)).body;
    assert.deepEqual([keptAfter.organization, keptAfter.admin_user, keptAfter.team], [keptBefore.organization, keptBefore.admin_user, keptBefore.team]);
    assert.equal(await count('hosts WHERE inventory_id = $1', [keptInventory.id]), 1);
    assert.equal(await count('tenant_quota_events WHERE tenant_id = $1', [kept.id]), 1);
  });

  it('keeps the admin who belongs to another organization too', async () => {
    const shared = await provisionTenant(t, { name: 'Shared' });
    assert.equal((await t.post(`/api/v2/organizations/${kept.organization}/users/`, { id: shared.admin_user })).status, 204);
    assert.equal((await t.delete(`/api/v2/tenants/${shared.id}/?confirm=true`)).status, 204);
    assert.equal(await count('users WHERE id = $1', [shared.admin_user]), 1);
    assert.equal(await count('organizations WHERE id = $1', [shared.organization]), 0);
  });

  it('the periodic recalculation is a loop of the service', async () => {
    const { LOOPS } = await import('../src/composition/loops.ts');
    assert.ok(LOOPS.some((loop) => loop.name === 'tenant usage'));
    const { recalculateAllTenants } = await import('../src/resources/tenants/usage.ts');
    assert.equal(await recalculateAllTenants(t.db, t.env.projectsRoot), 1);
    assert.ok((await t.get(`/api/v2/tenants/${kept.id}/`)).body.usage.recalculated);
  });
});
