import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, createTestApp, type TestApp } from './helpers/app.ts';
import { newOrg, newTeam, newUser, type User } from './helpers/factories.ts';
import { bareJobTemplate, newCatalogItem, survey } from './helpers/catalog.ts';

// Rows here are read untyped from the tables the tests look into.
type AnyRow = any;

/**
 * Service requests: who sees, decides and deletes them (superuser, approver team member,
 * organization admin, requester, member of the organization, member and admin of another, a user of
 * no organization, system auditor),
 * approve/ and reject/ on pending requests only, the filters, and what each decision records and
 * notifies. The service runs no loops: approved requests' runs stay pending.
 */
const WHO = ['superuser', 'approver', 'orgAdmin', 'requester', 'member', 'otherMember', 'otherAdmin', 'plain', 'auditor'] as const;

describe('service catalog: requests', () => {
  let t: TestApp;
  let org: number;
  let otherOrg: number;
  let users: Record<(typeof WHO)[number], User>;
  let teamItem: any;
  let adminItem: any;
  let hook: number;

  const submit = async (item: any, body: Record<string, unknown> = {}) => {
    const res = await t.post(`/api/v2/service_catalog_items/${item.id}/submit/`, { extra_vars: { size: 'm' }, justification: 'needed', ...body }, { as: users.requester });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const stored = async (id: number) => (await t.db.query<AnyRow>('SELECT * FROM service_requests WHERE id = $1', [id]))[0];
  const runCount = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM unified_jobs'))[0].n;
  const ids = async (url: string, who: User) => {
    const res = await t.get(url, { as: who });
    assert.equal(res.status, 200, `${who.username}: ${res.text}`);
    return res.body.results.map((r: { id: number }) => r.id);
  };

  before(async () => {
    t = await createTestApp({}, { dispatcher: false });
    org = (await newOrg(t)).id;
    otherOrg = (await newOrg(t)).id;
    const approver = await newUser(t, { member: org });
    users = {
      superuser: { ...ADMIN, id: 1 },
      approver,
      orgAdmin: await newUser(t, { admin: org }),
      requester: await newUser(t, { member: org }),
      member: await newUser(t, { member: org }),
      otherMember: await newUser(t, { member: otherOrg }),
      otherAdmin: await newUser(t, { admin: otherOrg }),
      plain: await newUser(t),
      auditor: await newUser(t, { is_system_auditor: true }),
    };
    const team = await newTeam(t, org, { members: [approver] });
    const template = await bareJobTemplate(t, org, { survey: survey({ variable: 'size', type: 'multiplechoice', choices: ['s', 'm'], required: true }) });
    teamItem = await newCatalogItem(t, org, { job_template: template }, { name: 'Team approved', requires_approval: true, approver_team: team.id });
    adminItem = await newCatalogItem(t, org, { job_template: template }, { name: 'Admin approved', requires_approval: true });
    hook = (await t.post('/api/v2/notification_templates/', {
      name: 'catalog hook', organization: org, notification_type: 'webhook', notification_configuration: { url: 'http://127.0.0.1:9/', headers: {} },
    })).body.id;
    for (const item of [teamItem, adminItem]) {
      for (const event of ['requested', 'approved', 'rejected', 'finished']) {
        assert.equal((await t.post(`/api/v2/service_catalog_items/${item.id}/notification_templates_${event}/`, { id: hook })).status, 204);
      }
    }
  });
  after(async () => {
    await t?.close();
  });

  it('a request of an item that requires approval waits, launching nothing', async () => {
    const runs = await runCount();
    const request = await submit(teamItem);
    assert.equal(request.status, 'pending_approval');
    assert.equal(request.unified_job, null);
    assert.equal(request.decided_by, null);
    assert.equal(await runCount(), runs);
    const notes = await t.db.query<AnyRow>('SELECT event, extra_context FROM notifications WHERE notification_template_id = $1 ORDER BY id', [hook]);
    assert.equal(notes.at(-1).event, 'service_request.requested');
    assert.deepEqual(notes.at(-1).extra_context.service_request.catalog_item, { id: teamItem.id, name: 'Team approved' });
    assert.equal(notes.at(-1).extra_context.service_request.requester, users.requester.username);
  });

  it('who sees a request, and whose pending approvals list it', async () => {
    const byTeam = await submit(teamItem);
    const byAdmins = await submit(adminItem);
    const sees: Record<(typeof WHO)[number], boolean> = { superuser: true, approver: true, orgAdmin: true, requester: true, member: false, otherMember: false, otherAdmin: false, plain: false, auditor: true };
    // An approver team decides its item's requests; the organization's admins those of items without a team.
    const decides: Record<(typeof WHO)[number], [boolean, boolean]> = {
      superuser: [true, true], approver: [true, false], orgAdmin: [false, true], requester: [false, false], member: [false, false], otherMember: [false, false],
      otherAdmin: [false, false], plain: [false, false], auditor: [false, false],
    };
    for (const who of WHO) {
      const listed = await ids('/api/v2/service_requests/?page_size=200', users[who]);
      assert.equal(listed.includes(byTeam.id), sees[who], `${who} lists the team's request`);
      assert.equal((await t.get(`/api/v2/service_requests/${byTeam.id}/`, { as: users[who] })).status, sees[who] ? 200 : 403, who);
      const pending = await ids('/api/v2/service_requests/pending_approvals/?page_size=200', users[who]);
      assert.deepEqual([pending.includes(byTeam.id), pending.includes(byAdmins.id)], decides[who], `${who}'s pending approvals`);
      const shown = (await t.get(`/api/v2/service_requests/${byTeam.id}/`, { as: users[who] })).body;
      if (sees[who]) {
        assert.equal(shown.summary_fields.user_capabilities.approve, decides[who][0], `${who} may approve`);
        assert.deepEqual((await t.get(`/api/v2/service_requests/${byTeam.id}/approve/`, { as: users[who] })).body, { can_approve: decides[who][0] }, who);
        assert.deepEqual((await t.get(`/api/v2/service_requests/${byTeam.id}/reject/`, { as: users[who] })).body, { can_reject: decides[who][0] }, who);
      }
    }
    // Only the requests of the item's approvers: the team's member sees no request of the other item.
    assert.equal((await ids('/api/v2/service_requests/?page_size=200', users.approver)).includes(byAdmins.id), false);
  });

  it('approve/ and reject/ answer 403 to all but the approvers, changing nothing', async () => {
    const request = await submit(teamItem);
    const runs = await runCount();
    for (const who of ['orgAdmin', 'requester', 'member', 'otherMember', 'otherAdmin', 'plain', 'auditor'] as const) {
      assert.equal((await t.post(`/api/v2/service_requests/${request.id}/approve/`, {}, { as: users[who] })).status, 403, `${who} approves`);
      assert.equal((await t.post(`/api/v2/service_requests/${request.id}/reject/`, { reason: 'no' }, { as: users[who] })).status, 403, `${who} rejects`);
    }
    const other = await submit(adminItem);
    for (const who of ['approver', 'requester', 'member', 'otherMember', 'otherAdmin', 'plain', 'auditor'] as const) {
      assert.equal((await t.post(`/api/v2/service_requests/${other.id}/approve/`, {}, { as: users[who] })).status, 403, `${who} approves`);
      assert.equal((await t.post(`/api/v2/service_requests/${other.id}/reject/`, {}, { as: users[who] })).status, 403, `${who} rejects`);
    }
    assert.equal((await stored(request.id)).status, 'pending_approval');
    assert.equal((await stored(other.id)).status, 'pending_approval');
    assert.equal(await runCount(), runs);
  });

  it("an approver's approval launches the requester's run; a decided request answers 400", async () => {
    for (const [item, approver] of [[teamItem, users.approver], [adminItem, users.orgAdmin], [teamItem, users.superuser]] as const) {
      const request = await submit(item);
      const res = await t.post(`/api/v2/service_requests/${request.id}/approve/`, {}, { as: approver });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'running');
      assert.equal(res.body.decided_by, approver.id);
      assert.ok(res.body.decided_at);
      const [run] = await t.db.query<AnyRow>('SELECT * FROM unified_jobs WHERE id = $1', [res.body.unified_job]);
      assert.equal(run.created_by_id, users.requester.id, 'the run is the requester\'s');
      assert.equal(run.launch_type, 'manual');
      assert.equal(JSON.parse(run.extra_vars).size, 'm');
      for (const action of ['approve', 'reject']) {
        const again = await t.post(`/api/v2/service_requests/${request.id}/${action}/`, {}, { as: approver });
        assert.equal(again.status, 400, again.text);
        assert.match(again.body.detail, /only a pending_approval request can be/);
      }
    }
  });

  it('a rejection keeps its reason; a bad body changes nothing', async () => {
    const request = await submit(adminItem);
    for (const body of [{ reason: 5 }, { reason: 'x'.repeat(4097) }]) {
      const res = await t.post(`/api/v2/service_requests/${request.id}/reject/`, body, { as: users.orgAdmin });
      assert.equal(res.status, 400, res.text);
      assert.ok(res.body.reason, res.text);
    }
    assert.equal((await stored(request.id)).status, 'pending_approval');
    const res = await t.post(`/api/v2/service_requests/${request.id}/reject/`, { reason: 'Not this quarter.' }, { as: users.orgAdmin });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'rejected');
    assert.equal(res.body.reason, 'Not this quarter.');
    assert.equal(res.body.decided_by, users.orgAdmin.id);
    assert.equal(res.body.unified_job, null);
    assert.equal((await t.post(`/api/v2/service_requests/${request.id}/approve/`, {}, { as: users.orgAdmin })).status, 400);
  });

  it('deleted by the requester or an organization admin, only while pending or rejected', async () => {
    const pending = await submit(teamItem);
    const deletable = async (id: number, who: keyof typeof users) =>
      (await t.get(`/api/v2/service_requests/${id}/`, { as: users[who] })).body.summary_fields.user_capabilities.delete;
    assert.equal(await deletable(pending.id, 'requester'), true);
    for (const who of ['approver', 'member', 'otherMember', 'otherAdmin', 'plain', 'auditor'] as const) {
      assert.equal((await t.delete(`/api/v2/service_requests/${pending.id}/`, { as: users[who] })).status, 403, who);
    }
    assert.equal((await t.delete(`/api/v2/service_requests/${pending.id}/`, { as: users.requester })).status, 204);
    const rejected = await submit(adminItem);
    assert.equal((await t.post(`/api/v2/service_requests/${rejected.id}/reject/`, {}, { as: users.orgAdmin })).status, 200);
    assert.equal((await t.delete(`/api/v2/service_requests/${rejected.id}/`, { as: users.orgAdmin })).status, 204);
    const running = await submit(adminItem);
    assert.equal((await t.post(`/api/v2/service_requests/${running.id}/approve/`, {}, { as: users.orgAdmin })).status, 200);
    for (const who of ['requester', 'orgAdmin', 'superuser'] as const) {
      assert.equal(await deletable(running.id, who), false, `${who} is offered no delete of a running request`);
      const res = await t.delete(`/api/v2/service_requests/${running.id}/`, { as: users[who] });
      assert.equal(res.status, 409, `${who}: ${res.text}`);
      assert.match(res.body.detail, /only pending_approval or rejected requests can be deleted/);
    }
    assert.equal((await t.delete(`/api/v2/service_requests/${running.id}/`, { as: users.member })).status, 403);
    assert.ok(await stored(running.id));
    assert.equal(await stored(pending.id), undefined);
  });

  it('filter by mine, status (pending for pending_approval) and catalog_item', async () => {
    const mine = await ids('/api/v2/service_requests/?mine=true&page_size=200', users.requester);
    assert.ok(mine.length > 0);
    assert.deepEqual(await ids('/api/v2/service_requests/?mine=true&page_size=200', users.orgAdmin), []);
    assert.deepEqual(await ids('/api/v2/service_requests/?mine=false&page_size=200', users.requester), []);
    const all = (await t.get('/api/v2/service_requests/?page_size=200')).body.results;
    const pending = await ids('/api/v2/service_requests/?status=pending&page_size=200', users.superuser);
    assert.deepEqual(pending, all.filter((r: AnyRow) => r.status === 'pending_approval').map((r: AnyRow) => r.id));
    assert.deepEqual(await ids('/api/v2/service_requests/?status=pending_approval&page_size=200', users.superuser), pending);
    assert.deepEqual(await ids('/api/v2/service_requests/?status=rejected&page_size=200', users.superuser), all.filter((r: AnyRow) => r.status === 'rejected').map((r: AnyRow) => r.id));
    assert.deepEqual(await ids(`/api/v2/service_requests/?catalog_item=${adminItem.id}&page_size=200`, users.superuser), all.filter((r: AnyRow) => r.catalog_item === adminItem.id).map((r: AnyRow) => r.id));
    assert.deepEqual(await ids(`/api/v2/service_catalog_items/${adminItem.id}/requests/?page_size=200`, users.superuser), await ids(`/api/v2/service_requests/?catalog_item=${adminItem.id}&page_size=200`, users.superuser));
    assert.deepEqual(await ids(`/api/v2/service_catalog_items/${teamItem.id}/requests/?page_size=200`, users.member), [], 'a member sees no one else\'s requests of an item');
    assert.equal((await t.get('/api/v2/service_requests/?mine=perhaps')).status, 400);
  });

  it('submit, approval and rejection are in the activity stream and the audit log, with their notifications', async () => {
    const approved = await submit(adminItem, { extra_vars: { size: 's' } });
    await t.post(`/api/v2/service_requests/${approved.id}/approve/`, {}, { as: users.orgAdmin });
    const rejected = await submit(adminItem);
    await t.post(`/api/v2/service_requests/${rejected.id}/reject/`, { reason: 'no' }, { as: users.orgAdmin });
    const activity = async (id: number) => (await t.get(`/api/v2/service_requests/${id}/activity_stream/`)).body.results.map((a: AnyRow) => [a.operation, a.changes.status]);
    assert.deepEqual(await activity(approved.id), [['update', ['pending_approval', 'running']], ['create', 'pending_approval']]);
    assert.deepEqual(await activity(rejected.id), [['update', ['pending_approval', 'rejected']], ['create', 'pending_approval']]);
    const audit = (await t.get(`/api/v2/audit_events/?target_type=service_request&order_by=id&page_size=200`)).body.results.filter((e: AnyRow) => [approved.id, rejected.id].includes(e.target_id));
    assert.deepEqual(audit.map((e: AnyRow) => [e.event_type, e.target_id, e.actor]), [
      ['catalog.request_submitted', approved.id, users.requester.id],
      ['catalog.request_approved', approved.id, users.orgAdmin.id],
      ['catalog.request_submitted', rejected.id, users.requester.id],
      ['catalog.request_rejected', rejected.id, users.orgAdmin.id],
    ]);
    assert.equal(audit[1].detail.unified_job, (await stored(approved.id)).unified_job_id);
    assert.equal(audit[0].target_name, 'Admin approved');
    const events = await t.db.query<AnyRow>(
      `SELECT event, extra_context->'service_request'->>'id' AS request FROM notifications WHERE notification_template_id = $1 AND (extra_context->'service_request'->>'id')::int = ANY($2::int[]) ORDER BY id`,
      [hook, [approved.id, rejected.id]],
    );
    assert.deepEqual(events.map((e: AnyRow) => [e.event, Number(e.request)]), [
      ['service_request.requested', approved.id],
      ['service_request.approved', approved.id],
      ['service_request.requested', rejected.id],
      ['service_request.rejected', rejected.id],
    ]);
  });

  it('an approval of a disabled item, or of a request whose item is gone, answers 400 and launches nothing', async () => {
    const template = await bareJobTemplate(t, org);
    const item = await newCatalogItem(t, org, { job_template: template }, { requires_approval: true });
    const first = await t.post(`/api/v2/service_catalog_items/${item.id}/submit/`, {}, { as: users.requester });
    const second = await t.post(`/api/v2/service_catalog_items/${item.id}/submit/`, {}, { as: users.requester });
    const runs = await runCount();
    assert.equal((await t.patch(`/api/v2/service_catalog_items/${item.id}/`, { enabled: false })).status, 200);
    const disabled = await t.post(`/api/v2/service_requests/${first.body.id}/approve/`, {}, { as: users.orgAdmin });
    assert.equal(disabled.status, 400, disabled.text);
    assert.match(disabled.body.detail, /disabled/);
    assert.equal((await t.delete(`/api/v2/service_catalog_items/${item.id}/`)).status, 204);
    const gone = await t.post(`/api/v2/service_requests/${second.body.id}/approve/`, {}, { as: users.orgAdmin });
    assert.equal(gone.status, 400, gone.text);
    assert.match(gone.body.detail, /no longer exists/);
    assert.equal(await runCount(), runs);
    assert.equal((await t.post(`/api/v2/service_requests/${second.body.id}/reject/`, {}, { as: users.orgAdmin })).status, 200, 'still rejected by the organization\'s admins');
  });
});
