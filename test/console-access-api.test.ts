import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { grant, newInventory, newOrg, newUser, roleOf, type User } from './helpers/factories.ts';

/** What the console reads of the API to decide what to offer and how to name things. */
describe('API for the console: lists refused, hidden settings, names in the activity stream', () => {
  let t: TestApp;
  let org: any;
  let member: User;
  let auditor: User;

  before(async () => {
    t = await createTestApp();
    org = await newOrg(t, { name: 'Console org' });
    member = await newUser(t, { username: 'console-member', member: org });
    auditor = await newUser(t, { username: 'console-auditor', is_system_auditor: true });
  });
  after(() => t.close());

  it('refuses the management job lists to all but superusers and system auditors, as AWX', async () => {
    for (const list of ['/api/v2/system_job_templates/', '/api/v2/system_jobs/']) {
      const refused = await t.get(list, { as: member });
      assert.equal(refused.status, 403, list);
      assert.equal(refused.body.detail, 'Superuser privileges needed.');
      assert.equal((await t.get(list, { as: auditor })).status, 200, list);
      assert.equal((await t.get(list)).status, 200, list);
    }
  });

  it('shows a user the instances of the instance groups they may see, and every instance to an auditor', async () => {
    const all = (await t.get('/api/v2/instances/')).body;
    assert.ok(all.count > 0);
    assert.equal((await t.get('/api/v2/instances/', { as: auditor })).body.count, all.count);
    assert.equal((await t.get('/api/v2/instances/', { as: member })).body.count, 0);
    const group = (await t.get('/api/v2/instance_groups/?page_size=1&order_by=id')).body.results[0];
    const members = (await t.get(`/api/v2/instance_groups/${group.id}/instances/`)).body.results.map((i: any) => i.id);
    assert.ok(members.length > 0, 'the first instance group has instances');
    await grant(t, member, group, 'read_role');
    const seen = (await t.get('/api/v2/instances/', { as: member })).body.results.map((i: any) => i.id);
    assert.deepEqual(seen.sort(), members.sort());
  });

  it('lists templates of the asked types with ?type=a,b (what the dashboard asks)', async () => {
    const answer = await t.get('/api/v2/unified_job_templates/?type=job_template,workflow_job_template&order_by=-last_job_run&page_size=5');
    assert.equal(answer.status, 200);
    assert.ok(answer.body.results.every((o: any) => ['job_template', 'workflow_job_template'].includes(o.type)));
  });

  it("marks AWX's name of a Drover setting, and hides the settings of containers, Kubernetes and receptor", async () => {
    const jobs = (await t.request('OPTIONS', '/api/v2/settings/jobs/')).body.actions.PUT;
    assert.equal(jobs.AWX_TASK_ENV.alias_of, 'SVC_TASK_ENV');
    assert.equal(jobs.SVC_TASK_ENV.alias_of, undefined);
    assert.match(jobs.AWX_TASK_ENV.help_text, /AWX's name of SVC_TASK_ENV/);
    for (const name of ['AWX_RUNNER_KEEPALIVE_SECONDS', 'AWX_MOUNT_ISOLATED_PATHS_ON_K8S', 'DEFAULT_CONTAINER_RUN_OPTIONS']) assert.equal(jobs[name].hidden, true, name);
    assert.equal(jobs.DEFAULT_JOB_TIMEOUT.hidden, undefined);
    const all = (await t.request('OPTIONS', '/api/v2/settings/all/')).body.actions.GET;
    assert.equal(all.IS_K8S.hidden, true);
    assert.equal(all.RECEPTOR_RELEASE_WORK.hidden, true);
  });

  it('names the objects of activity entries in summary_fields, a role with the object it belongs to', async () => {
    const inventory = await newInventory(t, org, { name: 'Named inventory' });
    const grantee = await newUser(t, { username: 'named-grantee' });
    await grant(t, grantee, inventory, 'admin_role');
    const adminRole = await roleOf(t, inventory, 'admin_role');
    const entries = (await t.get(`/api/v2/activity_stream/?operation=associate&object1=user&object1_id=${grantee.id}`)).body.results;
    const entry = entries.find((e: any) => e.object2 === 'role' && e.object2_id === adminRole);
    assert.ok(entry, 'the grant is in the activity stream');
    assert.equal(entry.summary_fields.user[0].username, 'named-grantee');
    const role = entry.summary_fields.role[0];
    assert.equal(role.id, adminRole);
    assert.equal(role.name, 'Admin');
    assert.equal(role.resource_name, 'Named inventory');
    assert.equal(role.resource_type, 'inventory');
    assert.equal(role.resource_id, inventory.id);

    const created = (await t.get(`/api/v2/activity_stream/?operation=create&object1=inventory&object1_id=${inventory.id}`)).body.results[0];
    assert.equal(created.summary_fields.inventory[0].name, 'Named inventory');
  });
});
