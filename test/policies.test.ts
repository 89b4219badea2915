import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { newOrg, newUser, type User } from './helpers/factories.ts';
import { refusingUrl, startOpaServer, type OpaServer } from './helpers/opa-server.ts';

/** A module of `pkg`, the package path of a policy of the organization with that id (drover.org_<id>.launch). */
const regoOf = (pkg: string) => `package ${pkg}\n\ndeny contains msg if {\n  input.extra_vars.env == "prod"\n  msg := "no prod"\n}\n`;

/** Policies: CRUD with engine sync, enable/disable, test/, who may do what. */
describe('policies', () => {
  let t: TestApp;
  let opa: OpaServer;
  let org: number;
  let other: number;
  let orgAdmin: User;
  let auditor: User;
  let member: User;
  let otherAdmin: User;
  let serial = 0;
  let launch: string;
  let REGO: string;

  const fields = (extra: Record<string, unknown> = {}) => ({
    name: `policy-${++serial}`, organization: org, rego_module: REGO, package_path: launch, ...extra,
  });
  const create = async (extra: Record<string, unknown> = {}) => {
    const res = await t.post('/api/v2/policies/', fields(extra));
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const pointAt = async (url: string) => assert.equal((await t.patch('/api/v2/settings/security/', { OPA_SERVER_URL: url })).status, 200);

  before(async () => {
    opa = await startOpaServer();
    t = await createTestApp({}, { dispatcher: false });
    await pointAt(opa.url);
    org = (await newOrg(t)).id;
    other = (await newOrg(t)).id;
    launch = `drover.org_${org}.launch`;
    REGO = regoOf(launch);
    orgAdmin = await newUser(t, { admin: org });
    auditor = await newUser(t, { auditor: org });
    member = await newUser(t, { member: org });
    otherAdmin = await newUser(t, { admin: other });
  });
  after(async () => {
    await t?.close();
    await opa?.close();
  });

  it('creates a policy, uploads it as svc_<id> and reports the sync', async () => {
    const created = await create({ applies_to: ['job_template', 'job_template'] });
    assert.equal(created.type, 'policy');
    assert.equal(created.last_sync_status, 'ok');
    assert.equal(created.enforcement, 'enforce');
    assert.equal(created.enabled, true);
    assert.deepEqual(created.applies_to, ['job_template']);
    assert.equal(created.trigger_count, 0);
    assert.equal(created.last_evaluated_at, null);
    assert.equal(created.related.test, `/api/v2/policies/${created.id}/test/`);
    assert.equal(opa.policies.get(`svc_${created.id}`), REGO);

    const changed = await t.patch(`/api/v2/policies/${created.id}/`, { rego_module: `${REGO}# v2\n` });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(opa.policies.get(`svc_${created.id}`), `${REGO}# v2\n`);
    assert.equal((await t.delete(`/api/v2/policies/${created.id}/`)).status, 204);
    assert.equal(opa.policies.has(`svc_${created.id}`), false);
  });

  it('a refused or unreachable upload saves the policy with last_sync_status failed', async () => {
    opa.refuseUploads(400);
    try {
      const refused = await create();
      assert.equal(refused.last_sync_status, 'failed');
      assert.match(refused.last_sync_error, /400.*rego_parse_error/);
      assert.equal((await t.get(`/api/v2/policies/${refused.id}/`)).body.last_sync_status, 'failed');
    } finally {
      opa.refuseUploads(null);
    }
    await pointAt(await refusingUrl());
    try {
      const unreachable = await create();
      assert.equal(unreachable.last_sync_status, 'failed');
      assert.equal((await t.delete(`/api/v2/policies/${unreachable.id}/`)).status, 204, 'a delete the engine misses still deletes');
    } finally {
      await pointAt(opa.url);
    }
  });

  it('enable uploads again; disable keeps the policy out of launches', async () => {
    const created = await create({ enabled: false });
    opa.policies.delete(`svc_${created.id}`);
    assert.equal((await t.post(`/api/v2/policies/${created.id}/enable/`, {})).body.enabled, true);
    assert.equal(opa.policies.has(`svc_${created.id}`), true);
    assert.equal((await t.post(`/api/v2/policies/${created.id}/disable/`, {})).body.enabled, false);
  });

  it('validates the Rego, the package path, enforcement and applies_to, storing nothing on a refusal', async () => {
    const before_ = (await t.get('/api/v2/policies/')).body.count;
    const cases: [Record<string, unknown>, string][] = [
      [{ rego_module: '' }, 'rego_module'],
      [{ rego_module: '   ' }, 'rego_module'],
      [{ package_path: '' }, 'package_path'],
      [{ package_path: '../../v1/policies' }, 'package_path'],
      [{ package_path: 'drover..launch' }, 'package_path'],
      [{ package_path: 'drover.launch?pretty=true' }, 'package_path'],
      [{ package_path: 'drover/launch#x' }, 'package_path'],
      [{ package_path: 'drover.launch' }, 'package_path'],
      [{ enforcement: 'block' }, 'enforcement'],
      [{ applies_to: ['job'] }, 'applies_to'],
      [{ applies_to: 'job_template' }, 'applies_to'],
    ];
    for (const [extra, field] of cases) {
      const res = await t.post('/api/v2/policies/', fields(extra));
      assert.equal(res.status, 400, `${JSON.stringify(extra)}: ${res.text}`);
      assert.ok(res.body[field], `${JSON.stringify(extra)}: ${res.text}`);
    }
    assert.equal((await t.get('/api/v2/policies/')).body.count, before_);
    assert.equal((await t.post('/api/v2/policies/', fields({ package_path: launch.replace(/\./g, '/') }))).status, 201);
  });

  it('filters by enabled, applies_to, organization and search', async () => {
    const adhoc = await create({ applies_to: ['ad_hoc_command'], description: 'findme-adhoc' });
    const all = await create({ applies_to: [], enabled: false });
    const ids = async (query: string) => (await t.get(`/api/v2/policies/?page_size=200&${query}`)).body.results.map((r: { id: number }) => r.id);
    assert.ok((await ids('applies_to=ad_hoc_command')).includes(adhoc.id));
    assert.ok((await ids('applies_to=ad_hoc_command')).includes(all.id), 'an empty applies_to applies to everything');
    assert.ok(!(await ids('applies_to=workflow_job_template')).includes(adhoc.id));
    assert.ok(!(await ids('enabled=true')).includes(all.id));
    assert.deepEqual(await ids('search=findme-adhoc'), [adhoc.id]);
    assert.ok(!(await ids(`organization=${other}`)).includes(adhoc.id));
  });

  it('test/ evaluates the package over the input and answers allowed, warnings, denies and raw', async () => {
    const created = await create({ package_path: `drover.org_${org}.tested` });
    const tested = `drover/org_${org}/tested`;
    opa.answer(tested, { result: ['no prod', { severity: 'low', message: 'small change' }] });
    const res = await t.post(`/api/v2/policies/${created.id}/test/`, { input: { extra_vars: { env: 'prod' } } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { allowed: false, warnings: ['small change'], denies: ['no prod'], raw: ['no prod', { severity: 'low', message: 'small change' }] });
    assert.deepEqual(opa.evaluations.at(-1), { path: tested, input: { extra_vars: { env: 'prod' } } });
    opa.answer(tested, { noResult: true });
    assert.deepEqual((await t.post(`/api/v2/policies/${created.id}/test/`, { input: {} })).body, { allowed: true, warnings: [], denies: [], raw: null });
    assert.equal((await t.post(`/api/v2/policies/${created.id}/test/`, { input: 'x' })).status, 400);
    assert.equal((await t.post(`/api/v2/policies/${created.id}/test/`, {})).status, 400);
    opa.answer(tested, { status: 500 });
    const down = await t.post(`/api/v2/policies/${created.id}/test/`, { input: {} });
    assert.equal(down.status, 503, down.text);
    assert.match(down.body.detail, /Policy engine unavailable/);
  });

  it('org admins manage their organization\'s policies; only superusers make global ones; auditors read', async () => {
    const mine = await t.post('/api/v2/policies/', fields(), { as: orgAdmin });
    assert.equal(mine.status, 201, mine.text);
    const global = await t.post('/api/v2/policies/', fields({ organization: null }), { as: orgAdmin });
    assert.equal(global.status, 403, global.text);
    const globalOmitted = await t.post('/api/v2/policies/', { name: 'g', rego_module: regoOf('a.b'), package_path: 'a.b' }, { as: orgAdmin });
    assert.equal(globalOmitted.status, 403, 'leaving out organization makes a global policy: superusers only');
    const superGlobal = await create({ organization: null, rego_module: regoOf('drover.launch'), package_path: 'drover.launch' });
    assert.equal(superGlobal.organization, null);
    assert.equal((await t.patch(`/api/v2/policies/${superGlobal.id}/`, { description: 'x' }, { as: orgAdmin })).status, 403);
    assert.equal((await t.patch(`/api/v2/policies/${mine.body.id}/`, { organization: null }, { as: orgAdmin })).status, 403);
    assert.equal((await t.patch(`/api/v2/policies/${mine.body.id}/`, { organization: other }, { as: orgAdmin })).status, 403);
    assert.equal((await t.post(`/api/v2/policies/${mine.body.id}/disable/`, {}, { as: orgAdmin })).status, 200);

    const seen = (await t.get('/api/v2/policies/?page_size=200', { as: auditor })).body.results.map((r: { id: number }) => r.id);
    assert.ok(seen.includes(mine.body.id) && seen.includes(superGlobal.id));
    assert.equal((await t.patch(`/api/v2/policies/${mine.body.id}/`, { description: 'x' }, { as: auditor })).status, 403);
    assert.equal((await t.post(`/api/v2/policies/${mine.body.id}/test/`, { input: {} }, { as: auditor })).status, 403);
    assert.equal((await t.post('/api/v2/policies/', fields(), { as: auditor })).status, 403);
  });

  it('attacks: a plain user and another organization\'s admin can neither see, change, toggle, test nor move policies', async () => {
    const victim = await create({ description: 'secret-policy' });
    for (const who of [member, otherAdmin]) {
      const list = (await t.get('/api/v2/policies/?page_size=200', { as: who })).body.results.map((r: { id: number }) => r.id);
      assert.ok(!list.includes(victim.id));
      assert.equal((await t.get(`/api/v2/policies/${victim.id}/`, { as: who })).status, 403);
      assert.equal((await t.patch(`/api/v2/policies/${victim.id}/`, { rego_module: 'package x' }, { as: who })).status, 403);
      assert.equal((await t.post(`/api/v2/policies/${victim.id}/disable/`, {}, { as: who })).status, 403);
      assert.equal((await t.post(`/api/v2/policies/${victim.id}/test/`, { input: {} }, { as: who })).status, 403);
      assert.equal((await t.delete(`/api/v2/policies/${victim.id}/`, { as: who })).status, 403);
      assert.equal((await t.get(`/api/v2/policies/?search=secret-policy`, { as: who })).body.count, 0);
      assert.equal((await t.post('/api/v2/policies/', fields(), { as: who })).status, 403, 'may not create in an organization it does not administer');
    }
    assert.equal((await t.post('/api/v2/policies/', fields({ organization: org }), { as: otherAdmin })).status, 403);
    const stored = (await t.get(`/api/v2/policies/${victim.id}/`)).body;
    assert.equal(stored.enabled, true);
    assert.equal(stored.rego_module, REGO);
    assert.equal((await t.get('/api/v2/policy_decisions/', { as: member })).body.count, 0);
  });

  it('the settings live in the security category with their defaults', async () => {
    const security = (await t.get('/api/v2/settings/security/')).body;
    assert.equal(security.OPA_EVALUATION_TIMEOUT_MS, 2000);
    assert.equal(security.OPA_FAIL_MODE, 'allow');
    assert.equal(security.OPA_ENABLED, false);
    assert.equal((await t.patch('/api/v2/settings/security/', { OPA_SERVER_URL: 'ftp://x' })).status, 400);
    assert.equal((await t.patch('/api/v2/settings/security/', { OPA_FAIL_MODE: 'maybe' })).status, 400);
    assert.equal((await t.patch('/api/v2/settings/security/', { OPA_EVALUATION_TIMEOUT_MS: 0 })).status, 400);
  });
});
