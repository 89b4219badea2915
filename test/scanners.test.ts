import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { newOrg, newUser, type User } from './helpers/factories.ts';

/** Scanners as a resource: who manages which, what a configuration may say, filters, and the read-only results. */
describe('scanners', () => {
  let t: TestApp;
  let org: number;
  let other: number;
  let admin: User;
  let otherAdmin: User;
  let member: User;
  let auditor: User;
  let serial = 0;
  const body = (fields: Record<string, unknown> = {}) => ({ name: `scanner-${++serial}`, organization: org, tool: 'ansible-lint', ...fields });
  const count = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM scanners'))[0].n;

  before(async () => {
    t = await createTestApp({}, { dispatcher: false });
    org = (await newOrg(t)).id;
    other = (await newOrg(t)).id;
    admin = await newUser(t, { admin: org });
    otherAdmin = await newUser(t, { admin: other });
    member = await newUser(t, { member: org });
    auditor = await newUser(t);
    const role = (await t.get(`/api/v2/organizations/${org}/`)).body.summary_fields.object_roles.auditor_role.id;
    assert.equal((await t.post(`/api/v2/users/${auditor.id}/roles/`, { id: role })).status, 204);
  });
  after(async () => {
    await t?.close();
  });

  it('an organization admin manages its own scanners; superusers the global ones', async () => {
    const own = await t.post('/api/v2/scanners/', body(), { as: admin });
    assert.equal(own.status, 201, own.text);
    assert.equal(own.body.severity_threshold, 'high');
    assert.equal(own.body.enforcement, 'warn');
    assert.equal(own.body.enabled, true);
    assert.deepEqual(own.body.applies_to, []);
    assert.equal(own.body.timeout, 120);
    assert.equal(own.body.related.scan_results, `/api/v2/scan_results/?scanner=${own.body.id}`);
    const before = await count();
    assert.equal((await t.post('/api/v2/scanners/', body({ organization: null }), { as: admin })).status, 403);
    assert.equal((await t.post('/api/v2/scanners/', body({ organization: other }), { as: admin })).status, 403);
    assert.equal((await t.post('/api/v2/scanners/', body(), { as: member })).status, 403);
    assert.equal(await count(), before);
    const global = await t.post('/api/v2/scanners/', body({ organization: null, tool: 'yamllint' }));
    assert.equal(global.status, 201, global.text);
    // Global scanners gate every organization: their admins read them, and only superusers change them.
    const seen = (await t.get('/api/v2/scanners/', { as: otherAdmin })).body.results.map((s: any) => s.id);
    assert.deepEqual(seen, [global.body.id]);
    assert.equal((await t.patch(`/api/v2/scanners/${global.body.id}/`, { enforcement: 'enforce' }, { as: admin })).status, 403);
    assert.equal((await t.get(`/api/v2/scanners/${own.body.id}/`, { as: otherAdmin })).status, 403);
    assert.equal((await t.patch(`/api/v2/scanners/${own.body.id}/`, { enforcement: 'enforce' }, { as: otherAdmin })).status, 403);
    assert.equal((await t.delete(`/api/v2/scanners/${own.body.id}/`, { as: otherAdmin })).status, 403);
    assert.equal((await t.post(`/api/v2/scanners/${own.body.id}/disable/`, {}, { as: member })).status, 403);
    assert.equal((await t.post(`/api/v2/scanners/${own.body.id}/disable/`, {}, { as: otherAdmin })).status, 403);
    // An auditor reads, changes nothing.
    assert.equal((await t.get(`/api/v2/scanners/${own.body.id}/`, { as: auditor })).status, 200);
    assert.equal((await t.patch(`/api/v2/scanners/${own.body.id}/`, { enabled: false }, { as: auditor })).status, 403);
    assert.equal((await t.get(`/api/v2/scanners/${own.body.id}/`)).body.enforcement, 'warn');
    // Moving a scanner to another organization needs its admin too.
    assert.equal((await t.patch(`/api/v2/scanners/${own.body.id}/`, { organization: other }, { as: admin })).status, 403);
    const disabled = await t.post(`/api/v2/scanners/${own.body.id}/disable/`, {}, { as: admin });
    assert.equal(disabled.status, 200, disabled.text);
    assert.equal((await t.get(`/api/v2/scanners/${own.body.id}/`)).body.enabled, false);
  });

  it('refuses configurations that are not the tool\'s, or load code, and targets the tool cannot read; nothing is stored', async () => {
    const before = await count();
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ config: 'skip_list: [unclosed' }, 'config', /Not valid YAML/],
      [{ config: '- a\n- list\n' }, 'config', /must be a YAML mapping/],
      [{ config: 'rulesdir:\n  - ./rules\n' }, 'config', /"rulesdir" is not accepted: custom rule directories load Python code/],
      [{ tool: 'yamllint', config: 'extends: /etc/passwd\n' }, 'config', /"extends" may name only yamllint's own configurations/],
      [{ tool: 'checkov', config: 'external-checks-dir: [x]\n' }, 'config', /load Python code/],
      [{ tool: 'yamllint', applies_to: ['ad_hoc_command'] }, 'applies_to', /yamllint cannot scan ad_hoc_command/],
      [{ tool: 'semgrep' }, 'tool', /not a valid choice/],
      [{ severity_threshold: 'severe' }, 'severity_threshold', /not a valid choice/],
      [{ enforcement: 'block' }, 'enforcement', /not a valid choice/],
      [{ timeout: 0 }, 'timeout', /greater than or equal to 1/],
      [{ applies_to: ['project_update'] }, 'applies_to', /not a valid choice/],
    ];
    for (const [fields, field, message] of cases) {
      const res = await t.post('/api/v2/scanners/', body(fields), { as: admin });
      assert.equal(res.status, 400, `${JSON.stringify(fields)}: ${res.text}`);
      assert.match(String(res.body[field]), message, JSON.stringify(res.body));
    }
    assert.equal(await count(), before);
    // A change is checked against the stored tool too.
    const made = (await t.post('/api/v2/scanners/', body({ tool: 'yamllint' }), { as: admin })).body;
    const changed = await t.patch(`/api/v2/scanners/${made.id}/`, { applies_to: ['ad_hoc_command'] }, { as: admin });
    assert.equal(changed.status, 400, changed.text);
    assert.deepEqual((await t.get(`/api/v2/scanners/${made.id}/`)).body.applies_to, []);
    const ok = await t.post('/api/v2/scanners/', body({ config: 'skip_list:\n  - yaml\nwarn_list:\n  - fqcn\n', applies_to: ['ad_hoc_command'] }), { as: admin });
    assert.equal(ok.status, 201, ok.text);
  });

  it('filters by tool, enabled, organization and applies_to (an empty applies_to reads everything), and OPTIONS names the tools', async () => {
    const lint = (await t.post('/api/v2/scanners/', body({ tool: 'yamllint', applies_to: ['workflow_job_template_node'] }))).body.id;
    const ids = async (query: string) => (await t.get(`/api/v2/scanners/?organization=${org}&page_size=200&${query}`)).body.results.map((s: any) => s.id);
    assert.ok((await ids('tool=yamllint')).includes(lint));
    assert.ok(!(await ids('tool=ansible-lint')).includes(lint));
    assert.ok(!(await ids('applies_to=job_template')).includes(lint));
    assert.ok((await ids('applies_to=workflow_job_template_node')).includes(lint));
    assert.ok((await ids('enabled=true')).includes(lint));
    const options = await t.request('OPTIONS', '/api/v2/scanners/');
    assert.deepEqual(options.body.actions.POST.tool.choices.map((c: any) => c[0]), ['ansible-lint', 'yamllint', 'checkov']);
    assert.match(options.body.actions.POST.tool.help_text, /checkov/);
  });

  it('scan results are written by launches only', async () => {
    assert.equal((await t.post('/api/v2/scan_results/', { status: 'ok' })).status, 405);
    const filtered = await t.get('/api/v2/scan_results/?since=yesterday');
    assert.equal(filtered.status, 400);
    assert.match(filtered.text, /Enter a date or datetime/);
  });
});
