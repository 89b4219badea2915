import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { ADMIN, createTestApp, newHost, newInventory, newJobTemplate, newOrg, newProject, newUser, type TestApp, type User } from './helpers/app.ts';
import { HELLO_PLAYBOOK } from './helpers/factories.ts';
import { assertQuotaRefusal, lastEventId, makeTenant, quotaEvents, setQuota, usageOf } from './helpers/quota.ts';
import { GATES } from '../src/composition/root.ts';
import { createQuotaGate, quotaGate } from '../src/quotas/quota-gate.ts';

/**
 * The tenant quota gate (docs/tenants.md#quotas) on API launches and host creation, with the
 * dispatcher off so launched jobs stay pending (each holds a slot until it is canceled), and the
 * gate's clock in the test's hands.
 */
describe('tenant quota gate', () => {
  let t: TestApp;
  let clock: Date | null = null;
  let org: number;
  let tenant: number;
  let inventory: number;
  let template: number;
  let other: number;
  let otherTemplate: number;
  let orgAdmin: User;
  let otherAdmin: User;
  let adminId: number;

  const launch = (id = template, body: Record<string, unknown> = {}, as?: User) => t.post(`/api/v2/job_templates/${id}/launch/`, body, as ? { as } : {});
  const jobsOf = async (organization: number) =>
    (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM unified_jobs WHERE organization_id = $1 AND kind = 'job'`, [organization]))[0].n;
  /** Cancels the organization's active jobs through the API, freeing their slots. */
  const cancelAll = async () => {
    const active = await t.get(`/api/v2/jobs/?organization=${org}&status__in=new,pending,waiting,running&page_size=200`);
    for (const job of active.body.results) {
      const res = await t.post(`/api/v2/jobs/${job.id}/cancel/`, {});
      assert.ok([202, 204].includes(res.status), res.text);
    }
    const left = await t.get(`/api/v2/jobs/?organization=${org}&status__in=new,pending,waiting,running`);
    assert.equal(left.body.count, 0, left.text);
  };
  const hostCount = async () =>
    (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM hosts h JOIN inventories i ON i.id = h.inventory_id WHERE i.organization_id = $1', [org]))[0].n;

  before(async () => {
    const gates = GATES.map((gate) => (gate === quotaGate ? createQuotaGate({ now: () => clock ?? new Date() }) : gate));
    t = await createTestApp({}, { gates, dispatcher: false });
    const projectOf = async (organization: number) => {
      await mkdir(`${t.env.projectsRoot}/quota${organization}`, { recursive: true });
      await writeFile(`${t.env.projectsRoot}/quota${organization}/hello.yml`, HELLO_PLAYBOOK);
      return newProject(t, organization, { local_path: `quota${organization}` });
    };
    org = (await newOrg(t, { name: 'tenant-org' })).id;
    other = (await newOrg(t, { name: 'plain-org' })).id;
    inventory = (await newInventory(t, org, { hosts: ['h1', 'h2'] })).id;
    template = (await newJobTemplate(t, { project: await projectOf(org), inventory, allow_simultaneous: true, ask_variables_on_launch: true })).id;
    const otherInventory = (await newInventory(t, other, { hosts: ['o1'] })).id;
    otherTemplate = (await newJobTemplate(t, { project: await projectOf(other), inventory: otherInventory, allow_simultaneous: true })).id;
    orgAdmin = await newUser(t, { admin: org });
    otherAdmin = await newUser(t, { admin: other });
    tenant = await makeTenant(t, org);
    adminId = (await t.get(`/api/v2/users/?username=${ADMIN.username}`)).body.results[0].id;
  });
  after(async () => {
    await t?.close();
  });

  it('20 concurrent launches against max_concurrent_jobs 3: exactly 3 start, 17 are refused with 429 and the reason, each decision recorded', async () => {
    await setQuota(t, tenant, { max_concurrent_jobs: 3 });
    const from = await lastEventId(t);
    const jobsBefore = await jobsOf(org);
    const answers = await Promise.all(Array.from({ length: 20 }, () => launch()));
    const started = answers.filter((r) => r.status === 201);
    const refused = answers.filter((r) => r.status !== 201);
    assert.equal(started.length, 3, answers.map((r) => r.status).join(','));
    assert.equal(refused.length, 17);
    for (const res of refused) assertQuotaRefusal(res, [/^max_concurrent_jobs is 3 and the organization already has 3 active jobs\.$/]);
    assert.equal(await jobsOf(org), jobsBefore + 3, 'a refused launch leaves no job');

    const events = await quotaEvents(t, tenant, from);
    assert.equal(events.length, 20);
    assert.ok(events.every((e) => e.quota_kind === 'max_concurrent_jobs' && e.quota_limit === 3 && e.organization_id === org));
    const allowed = events.filter((e) => e.decision === 'allow');
    assert.deepEqual(allowed.map((e) => e.usage), [0, 1, 2]);
    assert.deepEqual(allowed.map((e) => e.unified_job_id).sort(), started.map((r) => r.body.id).sort());
    const denied = events.filter((e) => e.decision === 'deny');
    assert.equal(denied.length, 17);
    assert.ok(denied.every((e) => e.usage === 3 && e.unified_job_id === null && e.action === 'launch job (manual)' && e.user_id === adminId), JSON.stringify(denied[0]));
    assert.equal((await usageOf(t, tenant)).concurrent_jobs, 3);
    const shown = await t.get(`/api/v2/tenants/${tenant}/`);
    assert.equal(shown.body.usage.concurrent_jobs, 3, shown.text);
    const listed = await t.get(`/api/v2/tenant_quota_events/?organization=${org}&decision=deny&quota_kind=max_concurrent_jobs`, { as: orgAdmin });
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.body.count, 17);
    assert.equal((await t.get(`/api/v2/tenant_quota_events/?organization=${org}`, { as: otherAdmin })).body.count, 0);

    // A slot comes back when its run ends.
    const first = started[0].body.id;
    assert.equal((await t.post(`/api/v2/jobs/${first}/cancel/`, {})).status, 202);
    assert.equal((await t.get(`/api/v2/jobs/${first}/`)).body.status, 'canceled');
    assert.equal((await usageOf(t, tenant)).concurrent_jobs, 2, 'the count follows the run\'s end');
    assert.equal((await launch()).status, 201);
    assertQuotaRefusal(await launch(), [/max_concurrent_jobs is 3/]);
    await cancelAll();
    assert.equal((await usageOf(t, tenant)).concurrent_jobs, 0);
  });

  it('an ad hoc command takes a slot like a job; a workflow job takes none', async () => {
    await setQuota(t, tenant, { max_concurrent_jobs: 1 });
    const adhoc = await t.post('/api/v2/ad_hoc_commands/', { inventory, module_name: 'ping' });
    assert.equal(adhoc.status, 201, adhoc.text);
    assertQuotaRefusal(await launch(), [/max_concurrent_jobs is 1 and the organization already has 1 active job\./]);
    assertQuotaRefusal(await t.post('/api/v2/ad_hoc_commands/', { inventory, module_name: 'ping' }), [/max_concurrent_jobs is 1/]);
    const workflow = await t.post('/api/v2/workflow_job_templates/', { name: 'quota flow', organization: org });
    assert.equal(workflow.status, 201, workflow.text);
    const launched = await t.post(`/api/v2/workflow_job_templates/${workflow.body.id}/launch/`, {});
    assert.equal(launched.status, 201, launched.text);
    assert.equal((await t.post(`/api/v2/ad_hoc_commands/${adhoc.body.id}/cancel/`, {})).status, 202);
    await t.post(`/api/v2/workflow_jobs/${launched.body.id}/cancel/`, {});
    assert.equal((await launch()).status, 201, 'the active workflow job holds no slot');
    await cancelAll();
  });

  it('the day\'s launches reset at the UTC day\'s boundary (clock injected)', async () => {
    await setQuota(t, tenant, { max_daily_launches: 2 });
    try {
      clock = new Date('2031-03-01T23:59:58Z');
      assert.equal((await launch()).status, 201);
      assert.equal((await launch()).status, 201);
      const from = await lastEventId(t);
      assertQuotaRefusal(await launch(), [/^max_daily_launches is 2 and the organization has launched 2 runs today \(UTC 2031-03-01\)\.$/]);
      const [event] = await quotaEvents(t, tenant, from);
      assert.deepEqual([event.quota_kind, event.decision, event.quota_limit, event.usage], ['max_daily_launches', 'deny', 2, 2]);
      assert.deepEqual([(await usageOf(t, tenant)).daily_date, (await usageOf(t, tenant)).daily_launches], ['2031-03-01', 2]);

      clock = new Date('2031-03-02T00:00:00.500Z');
      assert.equal((await launch()).status, 201, 'a new UTC day');
      const usage = await usageOf(t, tenant);
      assert.deepEqual([usage.daily_date, usage.daily_launches], ['2031-03-02', 1]);
      assert.equal((await launch()).status, 201);
      assertQuotaRefusal(await launch(), [/launched 2 runs today \(UTC 2031-03-02\)/]);
    } finally {
      clock = null;
      await cancelAll();
    }
  });

  it('a later gate\'s refusal releases the day\'s launch the quota gate took', async () => {
    await setQuota(t, tenant, { max_daily_launches: 5 });
    clock = new Date('2031-04-01T12:00:00Z');
    try {
      assert.equal((await launch()).status, 201);
      const before = await usageOf(t, tenant);
      assert.equal(before.daily_launches, 1);
      const from = await lastEventId(t);
      // The connection variables gate, after the quota gate, refuses this one.
      const refused = await launch(template, { extra_vars: { ansible_ssh_executable: '/tmp/not-ssh' } });
      assert.equal(refused.status, 400, refused.text);
      assert.match(JSON.stringify(refused.body.extra_vars), /ansible_ssh_executable/);
      assert.equal((await usageOf(t, tenant)).daily_launches, 1, 'the increment rolled back with the launch');
      const [event] = await quotaEvents(t, tenant, from);
      assert.deepEqual([event.quota_kind, event.decision, event.usage, event.unified_job_id], ['max_daily_launches', 'allow', 1, null]);
      for (let i = 0; i < 4; i++) assert.equal((await launch()).status, 201);
      assert.equal((await usageOf(t, tenant)).daily_launches, 5);
      assertQuotaRefusal(await launch(), [/max_daily_launches is 5 and the organization has launched 5 runs/]);
    } finally {
      clock = null;
      await cancelAll();
    }
  });

  it('null and 0 are unlimited: nothing is refused and no decision is recorded', async () => {
    for (const limit of [null, 0]) {
      await setQuota(t, tenant, { max_concurrent_jobs: limit, max_daily_launches: limit, max_hosts: limit, max_storage_mb: limit });
      await t.db.query('UPDATE tenant_usage SET storage_bytes = $2 WHERE tenant_id = $1', [tenant, 50 * 1024 * 1024]);
      const from = await lastEventId(t);
      for (let i = 0; i < 4; i++) assert.equal((await launch()).status, 201);
      assert.equal((await newHost(t, inventory)).inventory, inventory);
      assert.deepEqual(await quotaEvents(t, tenant, from), []);
      await cancelAll();
    }
    await t.db.query('UPDATE tenant_usage SET storage_bytes = 0 WHERE tenant_id = $1', [tenant]);
    // Only the limited quotas are checked: one event each.
    await setQuota(t, tenant, { max_concurrent_jobs: 0, max_daily_launches: 1000 });
    const from = await lastEventId(t);
    assert.equal((await launch()).status, 201);
    assert.deepEqual((await quotaEvents(t, tenant, from)).map((e) => e.quota_kind), ['max_daily_launches']);
    await cancelAll();
  });

  it('an organization that is no tenant is never limited, and does not count against one', async () => {
    await setQuota(t, tenant, { max_concurrent_jobs: 1 });
    assert.equal((await launch()).status, 201);
    const from = await lastEventId(t);
    for (let i = 0; i < 5; i++) assert.equal((await launch(otherTemplate)).status, 201);
    const [{ n }] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tenant_quota_events WHERE id > $1', [from]);
    assert.equal(n, 0);
    assertQuotaRefusal(await launch(), [/already has 1 active job\./]);
    await cancelAll();
  });

  it('max_hosts: hosts and storage at a launch, each exceeded quota its own reason', async () => {
    const hosts = await hostCount();
    await setQuota(t, tenant, { max_hosts: hosts, max_storage_mb: 5, max_daily_launches: 1000 });
    await t.db.query('UPDATE tenant_usage SET storage_bytes = $2 WHERE tenant_id = $1', [tenant, 5 * 1024 * 1024 - 1]);
    assert.equal((await launch()).status, 201, 'hosts at the limit and storage under it');
    await t.db.query('UPDATE tenant_usage SET storage_bytes = $2 WHERE tenant_id = $1', [tenant, 5 * 1024 * 1024]);
    assertQuotaRefusal(await launch(), [/^max_storage_mb is 5 and the organization's projects and run output take 5 MB\.$/]);
    await setQuota(t, tenant, { max_hosts: hosts - 1, max_storage_mb: 5, max_daily_launches: 1000 });
    const from = await lastEventId(t);
    assertQuotaRefusal(await launch(), [
      new RegExp(`^max_hosts is ${hosts - 1} and the organization's inventories hold ${hosts} hosts\\.$`),
      /^max_storage_mb is 5/,
    ]);
    assert.deepEqual((await quotaEvents(t, tenant, from)).map((e) => `${e.quota_kind} ${e.decision}`), ['max_daily_launches allow', 'max_hosts deny', 'max_storage_mb deny']);
    await t.db.query('UPDATE tenant_usage SET storage_bytes = 0 WHERE tenant_id = $1', [tenant]);
    await cancelAll();
  });

  it('a host past max_hosts is refused with 429 on every way of adding one, storing nothing', async () => {
    const hosts = await hostCount();
    await setQuota(t, tenant, { max_hosts: hosts + 1 });
    const group = await t.post('/api/v2/groups/', { name: 'quota-group', inventory });
    assert.equal(group.status, 201, group.text);
    const from = await lastEventId(t);
    const added = await t.post('/api/v2/hosts/', { name: 'last-one', inventory }, { as: orgAdmin });
    assert.equal(added.status, 201, added.text);
    assert.equal((await usageOf(t, tenant)).hosts, hosts + 1);
    const reason = new RegExp(`^max_hosts is ${hosts + 1} and the organization's inventories already hold ${hosts + 1} hosts\\.$`);
    assertQuotaRefusal(await t.post('/api/v2/hosts/', { name: 'one-too-many', inventory }, { as: orgAdmin }), [reason]);
    assertQuotaRefusal(await t.post(`/api/v2/inventories/${inventory}/hosts/`, { name: 'one-too-many' }), [reason]);
    assertQuotaRefusal(await t.post(`/api/v2/groups/${group.body.id}/hosts/`, { name: 'one-too-many' }), [reason]);
    const copy = await t.post(`/api/v2/inventories/${inventory}/copy/`, { name: 'copied' });
    assertQuotaRefusal(copy, [new RegExp(`^max_hosts is ${hosts + 1}`)]);
    assert.equal((await t.get(`/api/v2/inventories/?name=copied`)).body.count, 0, 'no copy is left');
    assert.equal(await hostCount(), hosts + 1, 'nothing stored');
    assert.equal((await t.get(`/api/v2/hosts/?name=one-too-many`)).body.count, 0);
    const events = await quotaEvents(t, tenant, from);
    assert.deepEqual(events.map((e) => `${e.action} ${e.decision}`), ['create host allow', 'create host deny', 'create host deny', 'create host deny', 'copy inventory deny']);
    const copied = (await t.get(`/api/v2/inventories/${inventory}/hosts/`)).body.count;
    assert.equal(events[4].message, `max_hosts is ${hosts + 1}: the organization's inventories hold ${hosts + 1} hosts and these ${copied} would make ${hosts + 1 + copied}.`);
    assert.equal(events[1].user_id, orgAdmin.id);
    assert.equal(events[1].usage, hosts + 1);

    // Changing a host checks nothing (a host never changes inventory, as AWX).
    assert.equal((await t.patch(`/api/v2/hosts/${added.body.id}/`, { description: 'still here' })).status, 200);
    const outsider = await newHost(t, (await newInventory(t, other)).id);
    // No inventory moves into a tenant with its hosts: the tenant boundary refuses it before the quota (docs/tenants.md#isolation).
    const moved = await t.patch(`/api/v2/inventories/${outsider.inventory}/`, { organization: org });
    assert.equal(moved.status, 400, moved.text);
    assert.deepEqual(moved.body, { organization: ['Objects cannot move into, out of or between tenants.'] });
    assert.equal((await t.get(`/api/v2/inventories/${outsider.inventory}/`)).body.organization, other);
    // Another organization adds hosts freely.
    assert.equal((await t.post('/api/v2/hosts/', { name: 'free', inventory: outsider.inventory })).status, 201);
    await setQuota(t, tenant, {});
  });

  it('10 hosts added at once with room for 3: exactly 3 are stored', async () => {
    const hosts = await hostCount();
    await setQuota(t, tenant, { max_hosts: hosts + 3 });
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => t.post(`/api/v2/inventories/${inventory}/hosts/`, { name: `rush-${i}` })));
    assert.equal(answers.filter((r) => r.status === 201).length, 3, answers.map((r) => r.status).join(','));
    for (const res of answers.filter((r) => r.status !== 201)) assertQuotaRefusal(res, [new RegExp(`^max_hosts is ${hosts + 3} and the organization's inventories already hold ${hosts + 3} hosts\\.$`)]);
    assert.equal(await hostCount(), hosts + 3);
    await setQuota(t, tenant, {});
  });

  it('attack: an organization admin cannot change the quotas or the usage they are measured by, nor spend another tenant\'s quota', async () => {
    await setQuota(t, tenant, { max_concurrent_jobs: 1, max_hosts: 1000 });
    assert.equal((await launch(template, {}, orgAdmin)).status, 201);
    assertQuotaRefusal(await launch(template, {}, orgAdmin), [/max_concurrent_jobs is 1/]);
    for (const as of [orgAdmin, otherAdmin]) {
      const refused = [
        await t.patch(`/api/v2/tenants/${tenant}/`, { quota: { max_concurrent_jobs: 0 } }, { as }),
        await t.post(`/api/v2/tenants/${tenant}/recalculate/`, {}, { as }),
        await t.post('/api/v2/tenants/', { name: 'mine', admin_username: 'me', admin_email: 'me@example.com', quota: {} }, { as }),
      ];
      for (const res of refused) assert.equal(res.status, 403, res.text);
      // Nothing writes the usage or the events.
      const unwritable = [
        await t.put(`/api/v2/tenants/${tenant}/`, { quota: { max_concurrent_jobs: 0 } }, { as }),
        await t.patch(`/api/v2/tenant_usage/${tenant}/`, { concurrent_jobs: 0 }, { as }),
        await t.post('/api/v2/tenant_usage/', { tenant_id: tenant, concurrent_jobs: 0 }, { as }),
        await t.patch('/api/v2/tenant_quota_events/1/', { decision: 'allow' }, { as }),
        await t.delete('/api/v2/tenant_quota_events/1/', { as }),
      ];
      for (const res of unwritable) assert.ok([403, 404, 405].includes(res.status), `${res.status} ${res.text}`);
    }
    // What an organization admin may change of the organization leaves the tenant's quotas alone.
    const patched = await t.patch(`/api/v2/organizations/${org}/`, { max_concurrent_jobs: 0, quota: { max_concurrent_jobs: 0 }, description: 'mine' }, { as: orgAdmin });
    assert.ok([200, 400].includes(patched.status), patched.text);
    const [row] = await t.db.query<{ max_concurrent_jobs: number }>('SELECT max_concurrent_jobs FROM tenants WHERE id = $1', [tenant]);
    assert.equal(row.max_concurrent_jobs, 1);
    assertQuotaRefusal(await launch(template, {}, orgAdmin), [/max_concurrent_jobs is 1/]);

    // Another organization's admin can neither launch the tenant's template nor add hosts to it, and asks no quota decision.
    const from = await lastEventId(t);
    assert.equal((await launch(template, {}, otherAdmin)).status, 403);
    assert.equal((await t.post('/api/v2/hosts/', { name: 'intruder', inventory }, { as: otherAdmin })).status, 403);
    assert.equal((await t.post(`/api/v2/inventories/${inventory}/hosts/`, { name: 'intruder' }, { as: otherAdmin })).status, 403);
    assert.equal((await t.post(`/api/v2/ad_hoc_commands/`, { inventory, module_name: 'ping' }, { as: otherAdmin })).status, 403);
    assert.equal((await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tenant_quota_events WHERE id > $1', [from]))[0].n, 0);
    await cancelAll();
    await setQuota(t, tenant, {});
  });
});
