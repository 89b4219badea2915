import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { newOrg, newUser, type User } from './helpers/factories.ts';
import { policyInState, refusingUrl, startOpaServer, startPolicySync, type OpaServer } from './helpers/opa-server.ts';
import { eventually } from './helpers/jobs.ts';
import { createObject, parseBody } from '../src/api/crud.ts';
import { ValidationError } from '../src/api/errors.ts';
import type { RouteModule } from '../src/api/extra-routes.ts';
import { SUPERUSER } from '../src/api/permissions.ts';
import { routeMethods } from '../src/api/resource-routes.ts';
import { policies } from '../src/resources/policies/policy.resource.ts';
import { shownError } from '../src/policy/engine-sync.ts';

/** A module of `pkg`, the package path of a policy of the organization with that id (drover.org_<id>.launch). */
const regoOf = (pkg: string) => `package ${pkg}\n\ndeny contains msg if {\n  input.extra_vars.env == "prod"\n  msg := "no prod"\n}\n`;

/** A request that saves a policy and then fails, so its transaction rolls back; it keeps the id the policy had. */
const rolledBack: number[] = [];
const saveThenFail: RouteModule = (app, services) => {
  routeMethods(app, '/api/v2/policies_rolled_back/', SUPERUSER, {
    POST: async (request) => services.db.transaction(async (tx) => {
      const row = await createObject(tx, request.ctx, policies, parseBody(policies, request.body, 'create', null));
      rolledBack.push(row.id as number);
      throw ValidationError.field('name', 'A later step of the same request failed.');
    }),
  });
};

/** Policies: CRUD with engine sync after commit, enable/disable, test/, who may do what. */
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
  let stopSync: () => Promise<void>;

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
    t = await createTestApp({}, { dispatcher: false, extraRoutes: [saveThenFail] });
    stopSync = await startPolicySync(t);
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
    await stopSync?.();
    await t?.close();
    await opa?.close();
  });

  it('creates a policy and answers at once; the upload as svc_<id> follows the commit and the state goes pending, then synced', async () => {
    const release = opa.holdChanges();
    let created: any;
    try {
      created = await create({ applies_to: ['job_template', 'job_template'] });
      assert.equal(created.type, 'policy');
      assert.equal(created.sync_state, 'pending', 'answered before the engine has it');
      assert.equal(created.sync_error, '');
      assert.equal(created.synced_at, null);
      assert.equal(created.enforcement, 'enforce');
      assert.equal(created.enabled, true);
      assert.deepEqual(created.applies_to, ['job_template']);
      assert.equal(created.trigger_count, 0);
      assert.equal(created.last_evaluated_at, null);
      assert.equal(created.related.test, `/api/v2/policies/${created.id}/test/`);
      await opa.changeArrived(`PUT svc_${created.id}`);
      assert.equal((await t.get(`/api/v2/policies/${created.id}/`)).body.sync_state, 'pending', 'pending while the engine has not answered');
    } finally {
      release();
    }
    const synced = await policyInState(t, created.id, 'synced');
    assert.ok(synced.synced_at);
    assert.equal(opa.policies.get(`svc_${created.id}`), REGO);

    const changed = await t.patch(`/api/v2/policies/${created.id}/`, { rego_module: `${REGO}# v2\n` });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.sync_state, 'pending');
    await policyInState(t, created.id, 'synced');
    assert.equal(opa.policies.get(`svc_${created.id}`), `${REGO}# v2\n`);
    const described = await t.patch(`/api/v2/policies/${created.id}/`, { description: 'no new text' });
    assert.equal(described.body.sync_state, 'synced', 'a change that leaves the text alone uploads nothing');
  });

  it('a change saved while the previous upload is on its way is sent after it: the engine ends with the latest text', async () => {
    const release = opa.holdChanges();
    let created: any;
    try {
      created = await create();
      await opa.changeArrived(`PUT svc_${created.id}`);
      const changed = await t.patch(`/api/v2/policies/${created.id}/`, { rego_module: `${REGO}# newer\n` });
      assert.equal(changed.body.sync_state, 'pending');
    } finally {
      release();
    }
    await policyInState(t, created.id, 'synced');
    assert.equal(opa.policies.get(`svc_${created.id}`), `${REGO}# newer\n`);
    assert.equal(opa.changes.filter((c) => c === `PUT svc_${created.id}`).length, 2);
  });

  it('a delete answers before the engine hears of it, and removes the policy from the engine after commit', async () => {
    const created = await create();
    await policyInState(t, created.id, 'synced');
    const release = opa.holdChanges();
    try {
      assert.equal((await t.delete(`/api/v2/policies/${created.id}/`)).status, 204);
      assert.equal(opa.policies.has(`svc_${created.id}`), true, 'still in the engine when the delete answers');
      await opa.changeArrived(`DELETE svc_${created.id}`);
    } finally {
      release();
    }
    await eventually(async () => !opa.policies.has(`svc_${created.id}`), 30_000, 'removed from the engine');

    // A policy deleted with its organization leaves the engine too.
    const doomed = (await newOrg(t)).id;
    const theirs = await t.post('/api/v2/policies/', fields({ organization: doomed, rego_module: regoOf(`drover.org_${doomed}.launch`), package_path: `drover.org_${doomed}.launch` }));
    assert.equal(theirs.status, 201, theirs.text);
    await policyInState(t, theirs.body.id, 'synced');
    assert.equal((await t.delete(`/api/v2/organizations/${doomed}/`)).status, 204);
    await opa.changeArrived(`DELETE svc_${theirs.body.id}`);
    await eventually(async () => !opa.policies.has(`svc_${theirs.body.id}`), 30_000, 'removed with its organization');
  });

  it('a save that rolls back, or is refused, leaves nothing for the engine', async () => {
    const mark = opa.changes.length;
    const failed = await t.post('/api/v2/policies_rolled_back/', fields());
    assert.equal(failed.status, 400, failed.text);
    const refused = await t.post('/api/v2/policies/', fields({ package_path: 'drover..launch' }));
    assert.equal(refused.status, 400, refused.text);
    const [ghost] = rolledBack;
    assert.ok(ghost, 'the failing request had saved a policy before it failed');
    assert.equal((await t.get(`/api/v2/policies/${ghost}/`)).status, 404);
    // The loop takes queued work in order: once a later save is synced, an earlier one would have been sent.
    const later = await create();
    await policyInState(t, later.id, 'synced');
    assert.deepEqual(opa.changes.slice(mark), [`PUT svc_${later.id}`]);
    assert.equal(opa.policies.has(`svc_${ghost}`), false);
  });

  it('a refused or unreachable upload makes the policy failed with the reason, and it is retried until the engine takes it', async () => {
    opa.refuseUploads(400);
    let refused: any;
    try {
      refused = await create();
      const failed = await policyInState(t, refused.id, 'failed');
      assert.match(failed.sync_error, /400.*rego_parse_error/);
      assert.equal(failed.synced_at, null);
      // Retried while refused: the engine is asked again.
      await eventually(async () => opa.changes.filter((c) => c === `PUT svc_${refused.id}`).length >= 2, 30_000, 'a second attempt');
    } finally {
      opa.refuseUploads(null);
    }
    const synced = await policyInState(t, refused.id, 'synced');
    assert.equal(synced.sync_error, '');
    assert.equal(opa.policies.get(`svc_${refused.id}`), REGO);

    await pointAt(await refusingUrl());
    let unreachable: any;
    try {
      unreachable = await create();
      const down = await policyInState(t, unreachable.id, 'failed');
      assert.match(down.sync_error, /127\.0\.0\.1/);
      assert.equal((await t.delete(`/api/v2/policies/${synced.id}/`)).status, 204, 'a delete the engine misses still deletes');
    } finally {
      await pointAt(opa.url);
    }
    await policyInState(t, unreachable.id, 'synced');
    await eventually(async () => !opa.policies.has(`svc_${synced.id}`), 30_000, 'the removal retried once the engine is back');
  });

  it('a sync error never shows a user or password written in the engine\'s address', () => {
    assert.equal(shownError('Refused: "https://opa:s3cret@opa.internal:8181/" is not a valid URL.'), 'Refused: "https://opa.internal:8181/" is not a valid URL.');
    assert.equal(shownError('The policy engine answered 400: rego_parse_error: a@b'), 'The policy engine answered 400: rego_parse_error: a@b');
  });

  it('enable uploads again; disable keeps the policy out of launches', async () => {
    const created = await create({ enabled: false });
    await policyInState(t, created.id, 'synced');
    opa.policies.delete(`svc_${created.id}`);
    const enabled = await t.post(`/api/v2/policies/${created.id}/enable/`, {});
    assert.equal(enabled.body.enabled, true);
    assert.equal(enabled.body.sync_state, 'pending');
    await policyInState(t, created.id, 'synced');
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
    const notInput = await t.post(`/api/v2/policies/${created.id}/test/`, { input: 'x' });
    assert.deepEqual([notInput.status, notInput.body], [400, { input: ['Expected a JSON object: the context document to evaluate.'] }]);
    const noInput = await t.post(`/api/v2/policies/${created.id}/test/`, {});
    assert.deepEqual([noInput.status, noInput.body], [400, { input: ['This field is required.'] }]);
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
    await policyInState(t, victim.id, 'synced');
    // What the engine said is the organization's: failed policies are neither listed nor searchable by its error.
    const failing = await create({ description: 'failing-policy' });
    opa.refuseUploads(400);
    await t.patch(`/api/v2/policies/${failing.id}/`, { rego_module: `${REGO}# broken\n` });
    await policyInState(t, failing.id, 'failed');
    const mark = opa.changes.length;
    assert.ok((await t.get('/api/v2/policies/?sync_error__icontains=rego_parse')).body.results.some((r: { id: number }) => r.id === failing.id), 'the filters find it for its admins');
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
      assert.equal((await t.get('/api/v2/policies/?sync_state=failed', { as: who })).body.count, 0);
      assert.equal((await t.get('/api/v2/policies/?sync_error__icontains=rego', { as: who })).body.count, 0);
      const failingSeen = await t.get(`/api/v2/policies/${failing.id}/`, { as: who });
      assert.equal(failingSeen.status, 403);
      assert.doesNotMatch(failingSeen.text, /rego_parse_error/);
      assert.equal((await t.post(`/api/v2/policies/${victim.id}/enable/`, {}, { as: who })).status, 403, 'may not upload it again');
    }
    opa.refuseUploads(null);
    // Their attempts queued nothing: the only uploads since are the retries of the failing policy.
    await policyInState(t, failing.id, 'synced');
    assert.deepEqual([...new Set(opa.changes.slice(mark))], [`PUT svc_${failing.id}`]);
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
