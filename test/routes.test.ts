import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, createTestApp, basicAuth, type Credentials, type TestApp } from './helpers/app.ts';
import { buildApp } from '../src/server/app.ts';
import type { RouteEntry } from '../src/api/permissions.ts';
import { makeRepository } from './helpers/git.ts';
import { registerInstance } from '../src/resources/instances/registration.ts';
import { firstProjectUpdate, waitForRun } from './helpers/jobs.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const KINDS = ['public', 'authenticated', 'superuser', 'admin_or_auditor', 'resource', 'object'];

const WEBHOOK_RECEIVER = /^\/api\/v2\/((workflow_)?job_templates\/:id\/(github|gitlab|bitbucket_dc|gitea|azure_devops)|eda_webhooks\/:path)\/$/;

/** A concrete URL for a route pattern: every :param becomes a value that exists or at least parses. */
let settingsSlug = 'system';
/** An existing object's id per list (/api/v2/<plural>/), so detail routes reach a real object. */
const sampleIds = new Map<string, number>();
const concrete = (url: string) =>
  url.replace(/:(\w+)/g, (_, name: string) => (name === 'id' ? String(sampleIds.get(url.split('/')[3]) ?? 1) : settingsSlug));

/** One object of every kind, so that every detail and related route has something to answer about. */
async function createOneOfEach(t: TestApp, organization: number): Promise<void> {
  const created = async (url: string, body: Record<string, unknown>) => {
    const res = await t.post(url, body);
    assert.equal(res.status, 201, `${url}: ${res.text}`);
    return res.body.id as number;
  };
  const repo = await makeRepository({ 'site.yml': '- hosts: all\n  tasks: []\n', 'hosts.ini': 'web1\n' });
  const project = await created('/api/v2/projects/', { name: 'router-project', organization, scm_type: 'git', scm_url: `file://${repo.bare}` });
  await firstProjectUpdate(t, project);
  const inventory = await created('/api/v2/inventories/', { name: 'router-inventory', organization });
  await created('/api/v2/hosts/', { name: 'router-host', inventory });
  await created('/api/v2/groups/', { name: 'router-group', inventory });
  const source = await created('/api/v2/inventory_sources/', { name: 'router-source', inventory, source: 'scm', source_project: project, source_path: 'hosts.ini' });
  await waitForRun(t, (await t.post(`/api/v2/inventory_sources/${source}/update/`)).body.url);
  const template = await created('/api/v2/job_templates/', { name: 'router-jt', project, inventory, playbook: 'site.yml' });
  // A catalog item that asks for approval (a submit launches nothing) and a rejected request of it (an approval answers 400).
  const item = await created('/api/v2/service_catalog_items/', { name: 'router-item', organization, job_template: template, requires_approval: true });
  await t.db.query<AnyRow>(`INSERT INTO service_requests (catalog_item_id, organization_id, requester_id, status) VALUES ($1, $2, 1, 'rejected')`, [item, organization]);
  await created('/api/v2/labels/', { name: 'router-label', organization });
  // A finished job (launching it would run a playbook here).
  const [job] = await t.db.query<AnyRow>(`INSERT INTO unified_jobs (kind, name, status, project_id, inventory_id, playbook) VALUES ('job', 'router-job', 'successful', $1, $2, 'site.yml') RETURNING id`, [project, inventory]);
  const [command] = await t.db.query<AnyRow>(`INSERT INTO unified_jobs (kind, name, status, inventory_id, module_name) VALUES ('ad_hoc_command', 'ping', 'successful', $1, 'ping') RETURNING id`, [inventory]);
  await t.db.query<AnyRow>(`INSERT INTO unified_jobs (kind, name, status, job_type) VALUES ('system_job', 'router-system-job', 'successful', 'cleanup_tokens')`);
  // Events and a host summary, which have routes of their own but no list to find them in.
  for (const [plural, run] of [['job_events', job.id], ['ad_hoc_command_events', command.id]] as const) {
    const [event] = await t.db.query<AnyRow>(`INSERT INTO unified_job_events (unified_job_id, counter, uuid, event) VALUES ($1, 1, 'u1', 'runner_on_ok') RETURNING id`, [run]);
    sampleIds.set(plural, Number(event.id));
  }
  const [summary] = await t.db.query<AnyRow>(`INSERT INTO job_host_summaries (job_id, host_name) VALUES ($1, 'router-host') RETURNING id`, [job.id]);
  sampleIds.set('job_host_summaries', summary.id);
  // A workflow with an approval node, a finished workflow job with its node and approval.
  const workflow = await created('/api/v2/workflow_job_templates/', { name: 'router-workflow', organization });
  const node = await created('/api/v2/workflow_job_template_nodes/', { workflow_job_template: workflow });
  const approvalTemplate = await created(`/api/v2/workflow_job_template_nodes/${node}/create_approval_template/`, { name: 'router-approval' });
  const [workflowJob] = await t.db.query<AnyRow>(`INSERT INTO unified_jobs (kind, name, status, workflow_job_template_id, unified_job_template_id) VALUES ('workflow_job', 'router-wj', 'successful', $1, $1) RETURNING id`, [workflow]);
  await t.db.query<AnyRow>(`INSERT INTO workflow_job_nodes (workflow_job_id, identifier) VALUES ($1, 'router-node')`, [workflowJob.id]);
  await t.db.query<AnyRow>(`INSERT INTO unified_jobs (kind, name, status, workflow_job_template_id, workflow_approval_template_id, unified_job_template_id) VALUES ('workflow_approval', 'router-approval', 'successful', $1, $2, $2)`, [workflow, approvalTemplate]);
  const scm = (await t.get('/api/v2/credential_types/?namespace=scm')).body.results[0].id;
  const routerCredential = await created('/api/v2/credentials/', { name: 'router-credential', organization, credential_type: scm, inputs: { username: 'u' } });
  // An input of it looked up from a HashiCorp Vault credential (a loopback address the outbound guard refuses).
  const kv = (await t.get('/api/v2/credential_types/?namespace=hashivault_kv')).body.results[0].id;
  const lookup = await created('/api/v2/credentials/', { name: 'router-vault', organization, credential_type: kv, inputs: { url: 'http://127.0.0.1:9/', token: 't', api_version: 'v2' } });
  await created('/api/v2/credential_input_sources/', { target_credential: routerCredential, source_credential: lookup, input_field_name: 'password', metadata: { secret_path: 'a/b', secret_key: 'k' } });
  // A webhook to a loopback address the outbound guard refuses: a test sent by the route checks reaches nothing.
  const hook = await created('/api/v2/notification_templates/', { name: 'router-nt', organization, notification_type: 'webhook', notification_configuration: { url: 'http://127.0.0.1:9/', headers: {} } });
  await t.db.query<AnyRow>(`INSERT INTO notifications (notification_template_id, notification_type, event, status) VALUES ($1, 'webhook', 'test', 'failed')`, [hook]);
  // Drift: two snapshots of the host, a detection between them, a rule and an alert it raised.
  const [{ id: host }] = await t.db.query<AnyRow>(`SELECT id FROM hosts WHERE name = 'router-host'`);
  const [a, b] = await t.db.query<AnyRow>(`INSERT INTO host_fact_snapshots (host_id, inventory_id, organization_id, facts, facts_hash) VALUES ($1, $2, $3, '{"v": 1}', 'a'), ($1, $2, $3, '{"v": 2}', 'b') RETURNING id`, [host, inventory, organization]);
  await t.db.query<AnyRow>(
    `INSERT INTO drift_detections (host_id, inventory_id, organization_id, snapshot_before_id, snapshot_after_id, category, severity, severity_rank, fact_path, summary, diff_type, detail)
     VALUES ($1, $2, $3, $4, $5, 'other', 'low', 1, 'v', '1 -> 2', 'changed', '{}')`,
    [host, inventory, organization, a.id, b.id],
  );
  const rule = await created('/api/v2/drift_alert_rules/', { name: 'router-rule', organization, notification_template: hook });
  await t.db.query<AnyRow>(`INSERT INTO drift_alerts (alert_rule_id, organization_id, host_id, drift_count, summary) VALUES ($1, $2, $3, 1, 'router')`, [rule, organization, host]);
  // An event rule and an event it received.
  const eventRule = await created('/api/v2/event_rules/', { name: 'router-event-rule', organization, webhook_path: 'router', actions: [{ action_type: 'send_notification', target_id: hook }] });
  await t.db.query<AnyRow>(`INSERT INTO event_logs (event_rule_id, event_rule_name, organization_id, event_guid, status) VALUES ($1, 'router-event-rule', $2, 'router', 'unmatched')`, [eventRule, organization]);
  // An outbound webhook to a loopback address the guard refuses: its test/ reaches nothing.
  await created('/api/v2/outbound_webhooks/', { name: 'router-outbound', organization, url: 'http://127.0.0.1:9/', events: ['job.failed'] });
  // A launch policy (uploaded to the engine after commit, by the policy engine sync loop) and a decision it took.
  const policy = await created('/api/v2/policies/', { name: 'router-policy', organization, rego_module: `package drover.org_${organization}.router`, package_path: `drover.org_${organization}.router` });
  await t.db.query<AnyRow>(`INSERT INTO policy_decisions (decision, policy_id, policy_name, organization_id, unified_job_id, message) VALUES ('warn', $1, 'router-policy', $2, 1, 'router')`, [policy, organization]);
  // A scanner and a result of it (written by launches only).
  const scanner = await created('/api/v2/scanners/', { name: 'router-scanner', organization, tool: 'yamllint' });
  await t.db.query<AnyRow>(`INSERT INTO scan_results (scanner_id, scanner_name, tool, organization_id, status, severity_threshold, enforcement) VALUES ($1, 'router-scanner', 'yamllint', $2, 'ok', 'high', 'warn')`, [scanner, organization]);
  // A tenant (its organization, admin and team made with it) branded for the host the requests name, and a quota decision about it.
  const tenant = await created('/api/v2/tenants/', { name: 'router-tenant', admin_username: 'router-tenant-admin', admin_email: 'router@example.com', branding: { custom_domain: 'localhost' } });
  await t.db.query<AnyRow>(`INSERT INTO tenant_quota_events (tenant_id, organization_id, quota_kind, decision, quota_limit, usage) SELECT id, organization_id, 'max_hosts', 'allow', 1, 0 FROM tenants WHERE id = $1`, [tenant]);
  // A passkey of the admin (registered through a browser ceremony, which this test does not drive); /webauthn/ has no list of its own to find it in.
  const [passkey] = await t.db.query<AnyRow>(`INSERT INTO webauthn_credentials (user_id, credential_id, public_key, label) VALUES (1, 'router', '\\x00', 'router') RETURNING id`);
  sampleIds.set('webauthn', passkey.id);
  // A host metric, as a job's end records it, and a month of their summary.
  await t.db.query<AnyRow>(`INSERT INTO host_metrics (hostname, last_automation, automated_counter) VALUES ('router-host', now(), 1)`);
  await t.db.query<AnyRow>(`INSERT INTO host_metric_summary_monthly (date) VALUES (date_trunc('month', now())::date)`);
  // A constructed inventory (its list is of inventories of that kind only).
  sampleIds.set('constructed_inventories', await created('/api/v2/constructed_inventories/', { name: 'router-constructed', organization }));
  // A role given to a team and to a user through the role definitions' assignments.
  const [execute] = await t.db.query<AnyRow>(`SELECT id FROM role_definitions WHERE name = 'Organization Execute'`);
  const [team] = await t.db.query<AnyRow>(`SELECT id FROM teams WHERE name = 'router-team'`);
  assert.equal((await t.post('/api/v2/role_team_assignments/', { role_definition: execute.id, team: team.id, object_id: organization })).status, 201);
  assert.equal((await t.post('/api/v2/role_user_assignments/', { role_definition: execute.id, user: 1, object_id: organization })).status, 201);
}

describe('routes', () => {
  let t: TestApp;
  let plain: Credentials & { id: number };
  let apiRoutes: readonly RouteEntry[];

  before(async () => {
    t = await createTestApp();
    plain = await t.createUser('plain-router');
    const defaultOrg = (await t.get('/api/v2/organizations/Default/')).body.id;
    assert.equal((await t.post('/api/v2/teams/', { name: 'router-team', organization: defaultOrg })).status, 201);
    const application = { name: 'router-app', organization: defaultOrg, client_type: 'confidential', authorization_grant_type: 'password' };
    assert.equal((await t.post('/api/v2/applications/', application)).status, 201);
    assert.equal((await t.post('/api/v2/tokens/', { description: 'router' })).status, 201);
    await registerInstance(t.services);
    await createOneOfEach(t, defaultOrg);
    const categories = await t.get('/api/v2/settings/');
    if (categories.status === 200 && categories.body.results?.length) settingsSlug = categories.body.results[0].slug;
    await t.app.ready();
    apiRoutes = t.app.routeTable.filter((r) => r.url.startsWith('/api'));
    for (const plural of new Set(apiRoutes.map((r) => r.url.split('/')[3]).filter(Boolean))) {
      const first = await t.get(`/api/v2/${plural}/?order_by=id&page_size=1`);
      if (first.status === 200 && first.body.results?.[0]?.id) sampleIds.set(plural, first.body.results[0].id);
    }
  });
  after(() => t.close());

  it('the route table lists the API', () => {
    const urls = new Set(apiRoutes.map((r) => r.url));
    for (const url of ['/api/', '/api/v2/', '/api/v2/ping/', '/api/v2/me/', '/api/v2/organizations/', '/api/v2/organizations/:id/', '/api/v2/teams/:id/users/', '/api/v2/users/:id/activity_stream/']) {
      assert.ok(urls.has(url), url);
    }
    assert.ok(apiRoutes.some((r) => r.url === '/api/v2/organizations/' && r.method === 'HEAD'), 'HEAD routes are listed too');
    assert.ok(apiRoutes.length > 40);
  });

  it('every registered route declares a permission', () => {
    const missing = t.app.routeTable.filter((r) => !r.permission).map((r) => `${r.method} ${r.url}`);
    assert.deepEqual(missing, []);
    for (const route of apiRoutes) {
      assert.ok(KINDS.includes(route.permission!.kind), `${route.method} ${route.url}: ${route.permission!.kind}`);
      if (route.permission!.kind === 'resource' || route.permission!.kind === 'object') {
        assert.ok(t.services.resources.find(route.permission!.resource), `${route.url} names resource ${route.permission!.resource}`);
      }
    }
  });

  it('only the entry points are public', () => {
    const publicUrls = [...new Set(apiRoutes.filter((r) => r.permission!.kind === 'public').map((r) => r.url))].sort();
    // The login, the OAuth2 endpoints, the list of sign-in methods (as AWX), passkey sign-in, provisioning callbacks (by host_config_key) and webhook and event receivers (by key) authenticate their callers themselves;
    // the metrics answer anonymous callers only when ALLOW_METRICS_FOR_ANONYMOUS_USERS says so, as AWX's.
    assert.deepEqual(publicUrls, [
      '/api/', '/api/login/', '/api/logout/', '/api/o/', '/api/o/revoke_token/', '/api/o/token/', '/api/v2/', '/api/v2/auth/', '/api/v2/branding/', '/api/v2/eda_webhooks/:path/',
      '/api/v2/job_templates/:id/azure_devops/', '/api/v2/job_templates/:id/bitbucket_dc/', '/api/v2/job_templates/:id/callback/',
      '/api/v2/job_templates/:id/gitea/', '/api/v2/job_templates/:id/github/', '/api/v2/job_templates/:id/gitlab/', '/api/v2/metrics/', '/api/v2/ping/',
      '/api/v2/webauthn/authenticate/begin/', '/api/v2/webauthn/authenticate/complete/',
      '/api/v2/workflow_job_templates/:id/azure_devops/', '/api/v2/workflow_job_templates/:id/bitbucket_dc/', '/api/v2/workflow_job_templates/:id/gitea/',
      '/api/v2/workflow_job_templates/:id/github/', '/api/v2/workflow_job_templates/:id/gitlab/',
    ]);
  });

  it('every non-public route refuses an anonymous caller with 401', async () => {
    const failures: string[] = [];
    for (const route of apiRoutes) {
      if (route.permission!.kind === 'public') continue;
      const res = await t.app.inject({
        method: route.method as 'GET',
        url: concrete(route.url),
        ...(['POST', 'PUT', 'PATCH'].includes(route.method) && { payload: {} }),
      });
      if (res.statusCode !== 401) failures.push(`${route.method} ${route.url} → ${res.statusCode}`);
    }
    assert.deepEqual(failures, []);
  });

  it('every endpoint that takes POST answers OPTIONS with actions (awxkit reads them to build arguments and exports)', async () => {
    const failures: string[] = [];
    for (const url of new Set(apiRoutes.filter((r) => r.permission!.kind !== 'public').map((r) => r.url))) {
      const res = await t.request('OPTIONS', concrete(url));
      if (res.status !== 200 || !String(res.headers.allow ?? '').includes('POST')) continue;
      if (typeof res.body.actions !== 'object') failures.push(url);
    }
    assert.deepEqual(failures, []);
  });

  it('every endpoint answers OPTIONS', async () => {
    const failures: string[] = [];
    for (const url of new Set(apiRoutes.map((r) => r.url))) {
      const res = await t.request('OPTIONS', concrete(url));
      if (res.status !== 200 || typeof res.body?.name !== 'string' || !Array.isArray(res.body.renders)) failures.push(`${url} → ${res.status}`);
    }
    assert.deepEqual(failures, []);
  });

  it('every endpoint answers each method with a meaningful status, 405 with Allow', async () => {
    const failures: string[] = [];
    for (const url of new Set(apiRoutes.map((r) => r.url))) {
      // Webhook and event receivers take deliveries only (POST, tested in template-webhooks.test.ts and eda-receiver.test.ts).
      if (WEBHOOK_RECEIVER.test(url)) continue;
      const methods = ['GET', 'POST', 'PUT', 'PATCH', ...(url.includes(':') ? [] : ['DELETE'])];
      for (const method of methods) {
        const res = await t.request(method, concrete(url), { body: method === 'GET' ? undefined : {} });
        // 426: the websocket endpoint asks for an upgrade.
        if (![200, 201, 202, 204, 400, 403, 405, 409, 426].includes(res.status)) failures.push(`${method} ${url} → ${res.status} ${res.text}`);
        // Allow lists what the endpoint does answer (POST only for the OAuth2 token endpoint), never the refused method.
        const allow = String(res.headers.allow ?? '').split(/,\s*/).filter(Boolean);
        if (res.status === 405 && (!allow.length || allow.includes(method) || !(allow.includes('GET') || url.startsWith('/api/o/')))) {
          failures.push(`${method} ${url}: 405 without Allow`);
        }
      }
    }
    assert.deepEqual(failures, []);
  });

  it('public routes answer an anonymous caller', async () => {
    for (const url of ['/api/', '/api/v2/', '/api/v2/ping/']) {
      const res = await t.get(url, { as: null });
      assert.equal(res.status, 200, url);
    }
  });

  it('superuser and administrator routes refuse a plain user with 403', async () => {
    const failures: string[] = [];
    let checked = 0;
    for (const route of apiRoutes) {
      if (!['superuser', 'admin_or_auditor'].includes(route.permission!.kind) || route.method === 'HEAD') continue;
      checked += 1;
      const res = await t.app.inject({
        method: route.method as 'GET',
        url: concrete(route.url),
        headers: { authorization: basicAuth(plain) },
        ...(['POST', 'PUT', 'PATCH'].includes(route.method) && { payload: {} }),
      });
      if (res.statusCode !== 403) failures.push(`${route.method} ${route.url} → ${res.statusCode}`);
    }
    assert.deepEqual(failures, []);
    assert.ok(checked > 0, 'the settings routes are restricted');
  });

  it('a route without a declared permission is refused', async () => {
    const app = await buildApp(t.services);
    try {
      app.get('/api/v2/undeclared/', async () => ({ secret: 'exposed' }));
      await app.ready();
      const entry = app.routeTable.find((r) => r.url === '/api/v2/undeclared/' && r.method === 'GET');
      assert.ok(entry);
      assert.equal(entry.permission, undefined);
      const res = await app.inject({ method: 'GET', url: '/api/v2/undeclared/', headers: { authorization: basicAuth(ADMIN) } });
      assert.equal(res.statusCode, 403);
      assert.deepEqual(JSON.parse(res.body), { detail: 'This endpoint declares no permission.' });
    } finally {
      await app.close();
    }
  });
});
