import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { newOrg, newUser, type User } from './helpers/factories.ts';
import { bareJobTemplate, newCatalogItem, survey } from './helpers/catalog.ts';
import { startOpaServer, type OpaServer } from './helpers/opa-server.ts';

// Rows here are read untyped from the tables the tests look into.
type AnyRow = any;

/**
 * An approved request launches through every gate of the composition: a launch policy on the OPA
 * stand-in evaluates it as the requester's launch started by the catalog, and its denial answers
 * the approval with a failed request holding the reasons, leaving no run. The service runs no loops.
 */
describe('service catalog: gates', () => {
  let t: TestApp;
  let opa: OpaServer;
  let org: number;
  let requester: User;
  let orgAdmin: User;
  let item: any;
  let serial = 0;

  const policy = async (result: unknown) => {
    const path = `drover.org_${org}.catalog${++serial}`;
    const res = await t.post('/api/v2/policies/', { name: `catalog-${serial}`, organization: org, rego_module: `package ${path}`, package_path: path, applies_to: ['job_template'] });
    assert.equal(res.status, 201, res.text);
    opa.answer(path.replace(/\./g, '/'), { result });
    return res.body;
  };
  const pending = async (answers: Record<string, unknown> = { env: 'prod', pin: 'hunter2' }) => {
    const res = await t.post(`/api/v2/service_catalog_items/${item.id}/submit/`, { extra_vars: answers }, { as: requester });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.status, 'pending_approval');
    return res.body;
  };
  const runCount = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM unified_jobs'))[0].n;

  before(async () => {
    opa = await startOpaServer();
    t = await createTestApp({}, { dispatcher: false });
    assert.equal((await t.patch('/api/v2/settings/security/', { OPA_ENABLED: true, OPA_SERVER_URL: opa.url, OPA_EVALUATION_TIMEOUT_MS: 2000, OPA_FAIL_MODE: 'allow' })).status, 200);
    org = (await newOrg(t, { policy_enforcement: 'enforce' })).id;
    requester = await newUser(t, { member: org });
    orgAdmin = await newUser(t, { admin: org });
    const template = await bareJobTemplate(t, org, { name: 'gated', survey: survey({ variable: 'env', type: 'text' }, { variable: 'pin', type: 'password' }) });
    item = await newCatalogItem(t, org, { job_template: template }, { name: 'Gated service', requires_approval: true });
  });
  after(async () => {
    await t?.close();
    await opa?.close();
  });

  it("a policy's denial of an approved launch fails the request with its reasons; the approval answers 200 and no run is left", async () => {
    const denying = await policy(['Production needs a change ticket.']);
    try {
      const request = await pending();
      const runs = await runCount();
      const res = await t.post(`/api/v2/service_requests/${request.id}/approve/`, {}, { as: orgAdmin });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'failed');
      assert.equal(res.body.unified_job, null);
      assert.equal(res.body.refusal_detail, 'Policy denied launch.');
      assert.deepEqual(res.body.refusal_reasons, [`${denying.name}: Production needs a change ticket.`]);
      assert.equal(res.body.decided_by, orgAdmin.id);
      assert.equal(await runCount(), runs, 'the run is gone');
      // The policy saw the requester's launch, started by the catalog, password answers masked.
      const input = opa.evaluations.at(-1)!.input;
      assert.deepEqual(input.trigger, { type: 'catalog', catalog_item: { id: item.id, name: 'Gated service' }, service_request: request.id });
      assert.equal(input.user.id, requester.id);
      assert.deepEqual(input.extra_vars, { env: 'prod', pin: '$encrypted$' });
      const [decision] = (await t.get(`/api/v2/policy_decisions/?policy=${denying.id}`)).body.results;
      assert.equal(decision.decision, 'deny');
      assert.equal(decision.user, requester.id);
      assert.doesNotMatch(JSON.stringify([opa.evaluations, decision, (await t.get(`/api/v2/service_requests/${request.id}/`)).body]), /hunter2/);
      const audit = (await t.get('/api/v2/audit_events/?event_type=catalog.request_approved')).body.results[0];
      assert.equal(audit.detail.status, 'failed');
      assert.equal(audit.detail.refusal, 'Policy denied launch.');
    } finally {
      await t.db.query('UPDATE policies SET enabled = false');
    }
  });

  it('a warning lets the approved launch go on, kept in the run\'s explanation', async () => {
    await policy({ warn: ['Outside the change window.'], deny: [] });
    try {
      const request = await pending({ env: 'test' });
      const res = await t.post(`/api/v2/service_requests/${request.id}/approve/`, {}, { as: orgAdmin });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'running');
      const [run] = await t.db.query<AnyRow>('SELECT job_explanation FROM unified_jobs WHERE id = $1', [res.body.unified_job]);
      assert.match(run.job_explanation, /Policy warning: catalog-\d+: Outside the change window\./);
    } finally {
      await t.db.query('UPDATE policies SET enabled = false');
    }
  });

  it('a connection variable the survey offers is still refused by its gate', async () => {
    const template = await bareJobTemplate(t, org, { survey: survey({ variable: 'ansible_connection', type: 'text' }) });
    const risky = await newCatalogItem(t, org, { job_template: template });
    const runs = await runCount();
    const res = await t.post(`/api/v2/service_catalog_items/${risky.id}/submit/`, { extra_vars: { ansible_connection: 'local' } }, { as: requester });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.status, 'failed');
    assert.match(res.body.refusal_reasons.join(' '), /ansible_connection/);
    assert.equal(await runCount(), runs);
  });
});
