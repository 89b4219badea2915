import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { grant, newOrg, newTeam, newUser, newWorkflow, type User } from './helpers/factories.ts';
import { bareJobTemplate, newCatalogItem } from './helpers/catalog.ts';

/**
 * Catalog items: organization admins with execute on the template create and change them; members
 * see the enabled items of their organizations, admins and auditors every item of theirs; an item
 * launches exactly one template of its organization; filters, named URLs, OPTIONS, notification lists.
 */
describe('service catalog: items', () => {
  let t: TestApp;
  let org: any;
  let otherOrg: any;
  let orgAdmin: User;
  let member: User;
  let orgAuditor: User;
  let plain: User;
  let otherAdmin: User;
  let template: number;
  let otherTemplate: number;
  let workflow: number;
  let enabledItem: any;
  let disabledItem: any;

  const count = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM service_catalog_items'))[0].n;
  const names = async (query: string, as?: User) => {
    const res = await t.get(`/api/v2/service_catalog_items/${query}`, as ? { as } : {});
    assert.equal(res.status, 200, res.text);
    return res.body.results.map((i: { name: string }) => i.name).sort();
  };

  before(async () => {
    t = await createTestApp({}, { dispatcher: false });
    org = await newOrg(t, { name: 'Shop' });
    otherOrg = await newOrg(t, { name: 'Elsewhere' });
    orgAdmin = await newUser(t, { admin: org });
    member = await newUser(t, { member: org });
    orgAuditor = await newUser(t, { auditor: org });
    plain = await newUser(t);
    otherAdmin = await newUser(t, { admin: otherOrg });
    template = await bareJobTemplate(t, org, { name: 'deploy' });
    otherTemplate = await bareJobTemplate(t, otherOrg, { name: 'elsewhere' });
    workflow = (await newWorkflow(t, org, { name: 'pipeline' })).id;
    enabledItem = await newCatalogItem(t, org, { job_template: template }, { name: 'VM', category: 'compute', tags: ['vm', 'linux'], description: 'a virtual machine' }, orgAdmin);
    disabledItem = await newCatalogItem(t, org, { workflow_job_template: workflow }, { name: 'Pipeline', category: 'ci', enabled: false }, orgAdmin);
  });
  after(async () => {
    await t?.close();
  });

  it('appear in the API root, with OPTIONS offering POST only to those who may create', async () => {
    const root = (await t.get('/api/v2/')).body;
    assert.equal(root.service_catalog_items, '/api/v2/service_catalog_items/');
    assert.equal(root.service_requests, '/api/v2/service_requests/');
    const asAdmin = (await t.request('OPTIONS', '/api/v2/service_catalog_items/', { as: orgAdmin })).body;
    assert.ok(asAdmin.actions.POST.job_template && asAdmin.actions.POST.approver_team);
    for (const who of [member, plain]) assert.equal((await t.request('OPTIONS', '/api/v2/service_catalog_items/', { as: who })).body.actions.POST, undefined);
  });

  it('are shown as declared, with their template, links and capabilities', async () => {
    const item = (await t.get(`/api/v2/service_catalog_items/${enabledItem.id}/`, { as: orgAdmin })).body;
    assert.equal(item.type, 'service_catalog_item');
    assert.deepEqual(
      [item.name, item.organization, item.job_template, item.workflow_job_template, item.category, item.tags, item.requires_approval, item.approver_team, item.enabled, item.icon],
      ['VM', org.id, template, null, 'compute', ['vm', 'linux'], false, null, true, ''],
    );
    assert.equal(item.summary_fields.job_template.name, 'deploy');
    assert.equal(item.related.launch_data, `/api/v2/service_catalog_items/${item.id}/launch_data/`);
    assert.equal(item.related.submit, `/api/v2/service_catalog_items/${item.id}/submit/`);
    assert.equal(item.related.requests, `/api/v2/service_catalog_items/${item.id}/requests/`);
    assert.equal(item.related.notification_templates_requested, `/api/v2/service_catalog_items/${item.id}/notification_templates_requested/`);
    assert.deepEqual(item.summary_fields.user_capabilities, { edit: true, delete: true });
    assert.deepEqual((await t.get(`/api/v2/service_catalog_items/${item.id}/`, { as: member })).body.summary_fields.user_capabilities, { edit: false, delete: false });
    const named = await t.get('/api/v2/service_catalog_items/VM++Shop/', { as: member });
    assert.equal(named.status, 200, named.text);
    assert.equal(named.body.id, enabledItem.id);
  });

  it('members see the enabled items of their organizations; admins and auditors see all of theirs; others none', async () => {
    assert.deepEqual(await names('', member), ['VM']);
    assert.deepEqual(await names('', orgAdmin), ['Pipeline', 'VM']);
    assert.deepEqual(await names('', orgAuditor), ['Pipeline', 'VM']);
    assert.deepEqual(await names('', plain), []);
    assert.deepEqual(await names('', otherAdmin), []);
    assert.equal((await t.get(`/api/v2/service_catalog_items/${disabledItem.id}/`, { as: member })).status, 403);
    assert.equal((await t.get(`/api/v2/service_catalog_items/${enabledItem.id}/`, { as: otherAdmin })).status, 403);
    assert.equal((await t.get(`/api/v2/service_catalog_items/${enabledItem.id}/launch_data/`, { as: plain })).status, 403);
  });

  it('filter by category, enabled, organization, tags and search', async () => {
    assert.deepEqual(await names('?category=compute'), ['VM']);
    assert.deepEqual(await names('?enabled=false'), ['Pipeline']);
    assert.deepEqual(await names(`?organization=${org.id}`), ['Pipeline', 'VM']);
    assert.deepEqual(await names(`?organization=${otherOrg.id}`), []);
    assert.deepEqual(await names('?tags=linux'), ['VM']);
    assert.deepEqual(await names('?search=virtual'), ['VM']);
    assert.deepEqual(await names('?search=ci'), ['Pipeline']);
    assert.deepEqual(await names('?category=compute', member), ['VM']);
    assert.deepEqual(await names('?enabled=false', member), [], 'a filter shows a member nothing hidden from him');
  });

  it('only organization admins who may execute the template create and change items', async () => {
    const before = await count();
    const body = { name: 'Refused', organization: org.id, job_template: template };
    for (const who of [member, plain, orgAuditor, otherAdmin]) {
      const res = await t.post('/api/v2/service_catalog_items/', body, { as: who });
      assert.equal(res.status, 403, `${who.username}: ${res.text}`);
      assert.equal((await t.patch(`/api/v2/service_catalog_items/${enabledItem.id}/`, { name: 'Taken' }, { as: who })).status, 403, who.username);
      assert.equal((await t.delete(`/api/v2/service_catalog_items/${enabledItem.id}/`, { as: who })).status, 403, who.username);
    }
    // Another organization's admin cannot point an item of his at a template he may not execute.
    const pointing = await t.post('/api/v2/service_catalog_items/', { name: 'Borrowed', organization: otherOrg.id, job_template: template }, { as: otherAdmin });
    assert.equal(pointing.status, 403, pointing.text);
    // An admin of both organizations may execute both templates, but an item launches its own organization's.
    const both = await newUser(t, { admin: [org, otherOrg] });
    const crossing = await t.post('/api/v2/service_catalog_items/', { name: 'Crossing', organization: org.id, job_template: otherTemplate }, { as: both });
    assert.equal(crossing.status, 400, crossing.text);
    assert.deepEqual(crossing.body, { job_template: ["The template must be one of the catalog item's organization."] });
    // An admin of the organization without execute on a template (an admin of the item's organization, of another's template).
    const changed = await t.patch(`/api/v2/service_catalog_items/${enabledItem.id}/`, { job_template: otherTemplate }, { as: orgAdmin });
    assert.equal(changed.status, 403, changed.text);
    assert.equal(await count(), before);
    assert.equal((await t.get(`/api/v2/service_catalog_items/${enabledItem.id}/`)).body.job_template, template);
  });

  it('refuse bad input with 400 and store nothing', async () => {
    const before = await count();
    const team = await newTeam(t, otherOrg);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ name: 'Two', job_template: template, workflow_job_template: workflow }, /exactly one template/],
      [{ name: 'None' }, /exactly one template/],
      [{ name: 'Team', job_template: template, approver_team: team.id }, /approver team must be a team of the catalog item's organization/],
      [{ name: '', job_template: template }, /name/],
      [{ name: 'Icon', job_template: template, icon: 'javascript:alert(1)' }, /icon/],
      [{ name: 'Icon2', job_template: template, icon: '<img>' }, /icon/],
      [{ name: 'Tags', job_template: template, tags: 'vm' }, /tags/],
      [{ name: 'Tags2', job_template: template, tags: [1] }, /tags/],
      [{ name: 'Tags3', job_template: template, tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, /tags/],
      [{ name: 'Missing', job_template: 999999 }, /job_template/],
      [{ name: 'Flag', job_template: template, requires_approval: 'maybe' }, /requires_approval/],
      [{ name: 'VM', job_template: template }, /already exists/],
      [{ name: 'Org', job_template: template, organization: 'x' }, /organization/],
    ];
    for (const [fields, problem] of cases) {
      const res = await t.post('/api/v2/service_catalog_items/', { organization: org.id, ...fields }, { as: orgAdmin });
      assert.equal(res.status, 400, `${JSON.stringify(fields)}: ${res.text}`);
      assert.match(res.text, problem, JSON.stringify(fields));
    }
    assert.equal(await count(), before);
    const unchanged = await t.patch(`/api/v2/service_catalog_items/${enabledItem.id}/`, { workflow_job_template: workflow }, { as: orgAdmin });
    assert.equal(unchanged.status, 400, unchanged.text);
    assert.equal((await t.get(`/api/v2/service_catalog_items/${enabledItem.id}/`)).body.workflow_job_template, null);
  });

  it('an admin changes an item, switches its template and deletes it; its requests stay', async () => {
    const team = await newTeam(t, org);
    const item = await newCatalogItem(t, org, { job_template: template }, { name: 'Short lived' }, orgAdmin);
    const switched = await t.patch(`/api/v2/service_catalog_items/${item.id}/`, { job_template: null, workflow_job_template: workflow, requires_approval: true, approver_team: team.id, icon: 'server' }, { as: orgAdmin });
    assert.equal(switched.status, 200, switched.text);
    assert.deepEqual([switched.body.job_template, switched.body.workflow_job_template, switched.body.approver_team, switched.body.icon], [null, workflow, team.id, 'server']);
    const request = await t.post(`/api/v2/service_catalog_items/${item.id}/submit/`, {}, { as: member });
    assert.equal(request.status, 201, request.text);
    assert.equal((await t.delete(`/api/v2/service_catalog_items/${item.id}/`, { as: orgAdmin })).status, 204);
    const kept = (await t.get(`/api/v2/service_requests/${request.body.id}/`, { as: member })).body;
    assert.equal(kept.catalog_item, null);
    assert.equal(kept.status, 'pending_approval');
    const activity = (await t.get(`/api/v2/activity_stream/?object1=service_catalog_item&object1_id=${item.id}`)).body.results;
    assert.deepEqual(activity.map((a: { operation: string }) => a.operation), ['delete', 'update', 'create']);
  });

  it("notification templates are attached per event by admins of the item's organization", async () => {
    const hook = (await t.post('/api/v2/notification_templates/', {
      name: 'catalog hook', organization: org.id, notification_type: 'webhook', notification_configuration: { url: 'http://127.0.0.1:9/', headers: {} },
    })).body;
    for (const event of ['requested', 'approved', 'rejected', 'finished']) {
      const url = `/api/v2/service_catalog_items/${enabledItem.id}/notification_templates_${event}/`;
      assert.equal((await t.post(url, { id: hook.id }, { as: member })).status, 403, event);
      assert.equal((await t.post(url, { id: hook.id }, { as: otherAdmin })).status, 403, event);
      assert.equal((await t.post(url, { id: hook.id }, { as: orgAdmin })).status, 204, event);
      assert.deepEqual((await t.get(url, { as: orgAdmin })).body.results.map((n: { id: number }) => n.id), [hook.id]);
    }
    const detach = await t.post(`/api/v2/service_catalog_items/${enabledItem.id}/notification_templates_finished/`, { id: hook.id, disassociate: true }, { as: orgAdmin });
    assert.equal(detach.status, 204);
    assert.deepEqual((await t.get(`/api/v2/service_catalog_items/${enabledItem.id}/notification_templates_finished/`)).body.results, []);
  });

  it('a template admin who is not an admin of its organization creates no item', async () => {
    const templateAdmin = await newUser(t, { member: org });
    await grant(t, templateAdmin, `/api/v2/job_templates/${template}/`, 'admin_role');
    const res = await t.post('/api/v2/service_catalog_items/', { name: 'By template admin', organization: org.id, job_template: template }, { as: templateAdmin });
    assert.equal(res.status, 403, res.text);
  });
});
