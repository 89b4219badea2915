import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newInventory, newOrg, newTeam, newUser, type TestApp, type User } from './helpers/app.ts';
import { waitForRun } from './helpers/jobs.ts';
import { observations, samples, scrape, value } from './helpers/metrics.ts';
import { GATES } from '../src/composition/root.ts';
import { registerInstance } from '../src/resources/instances/registration.ts';

const COUNTED = ['awx_organizations_total', 'awx_users_total', 'awx_teams_total', 'awx_inventories_total', 'awx_projects_total', 'awx_job_templates_total', 'awx_workflow_job_templates_total', 'awx_schedules_total'];
const STATUSES = ['pending', 'waiting', 'running', 'successful', 'failed', 'error', 'canceled'];

// Runs seeded in the database: the dispatcher is off, so they stay as they are.
const SEEDED: [status: string, launchType: string, node: string][] = [
  ['successful', 'manual', 'test-node'], ['successful', 'scheduled', 'test-node'], ['failed', 'manual', 'test-node'],
  ['error', 'manual', 'test-node'], ['canceled', 'manual', ''], ['pending', 'manual', ''], ['pending', 'manual', ''],
  ['waiting', 'manual', 'test-node'], ['running', 'manual', 'test-node'],
  // An implicit project sync: AWX leaves these out of every run count.
  ['successful', 'sync', 'test-node'],
];

describe('GET /api/v2/metrics/: cluster-wide values from the database', () => {
  let t: TestApp;
  let org: number;
  let plain: User;
  let orgAdmin: User;
  let orgAuditor: User;
  let systemAuditor: User;
  let before_: Awaited<ReturnType<typeof scrape>>;

  before(async () => {
    t = await createTestApp({}, { dispatcher: false });
    // What the heartbeat loop does first, the loops being off.
    await registerInstance(t.services);
    before_ = await scrape(t);
    org = (await newOrg(t)).id;
    await newOrg(t);
    plain = await newUser(t, { member: org });
    orgAdmin = await newUser(t, { admin: (await newOrg(t)).id });
    orgAuditor = await newUser(t, { auditor: org });
    systemAuditor = await newUser(t, { is_system_auditor: true });
    await newTeam(t, org);
    await newInventory(t, org, { hosts: ['web1', 'web2'] });
    // The same host in another inventory: one more host, no more active hosts (AWX counts names).
    await newInventory(t, org, { hosts: ['WEB1'] });
    const [{ id: inventory }] = await t.db.query<{ id: number }>('SELECT id FROM inventories ORDER BY id DESC LIMIT 1');
    for (const [status, launchType, node] of SEEDED) {
      await t.db.query(
        `INSERT INTO unified_jobs (kind, name, status, launch_type, execution_node, inventory_id, task_impact) VALUES ('ad_hoc_command', 'seeded', $1, $2, $3, $4, 1)`,
        [status, launchType, node, inventory],
      );
    }
  });
  after(() => t.close());

  it('counts what the test made, under AWX\'s names', async () => {
    const now = await scrape(t);
    const grew = (name: string, labels?: Record<string, string>) => value(now, name, labels) - value(before_, name, labels);
    assert.deepEqual(COUNTED.map((name) => [name, grew(name)]), [
      ['awx_organizations_total', 3], ['awx_users_total', 4], ['awx_teams_total', 1], ['awx_inventories_total', 2],
      ['awx_projects_total', 0], ['awx_job_templates_total', 0], ['awx_workflow_job_templates_total', 0], ['awx_schedules_total', 0],
    ]);
    assert.equal(grew('awx_hosts_total', { type: 'all' }), 3);
    assert.equal(grew('awx_hosts_total', { type: 'active' }), 2);
    assert.deepEqual(STATUSES.map((status) => [status, grew('awx_status_total', { status })]), [
      ['pending', 2], ['waiting', 1], ['running', 1], ['successful', 2], ['failed', 1], ['error', 1], ['canceled', 1],
    ]);
    assert.equal(grew('awx_running_jobs_total'), 2, 'running and waiting, as AWX counts them');
    assert.equal(grew('awx_pending_jobs_total'), 2);
    assert.equal(grew('drover_runs_queued', { status: 'pending' }), 2);
    assert.equal(grew('drover_runs_queued', { status: 'waiting' }), 1);
    assert.equal(value(now, 'awx_instance_launch_type_total', { node: 'test-node', launch_type: 'manual' }), 5);
    assert.equal(value(now, 'awx_instance_launch_type_total', { node: 'test-node', launch_type: 'scheduled' }), 1);
    assert.equal(value(now, 'awx_instance_status_total', { node: 'test-node', status: 'successful' }), 2);
    assert.deepEqual(samples(now, 'awx_instance_status_total', { node: '' }), [], 'runs placed on no node are left out');
    assert.ok(value(now, 'awx_database_connections_total') >= 1);
    assert.equal(value(now, 'awx_license_instance_total'), 0);
  });

  it('describes the installation in awx_system_info', async () => {
    const [info] = samples(await scrape(t), 'awx_system_info');
    assert.equal(info.value, '1');
    assert.equal(info.labels?.install_uuid, t.services.installUuid);
    assert.equal(info.labels?.tower_version, t.services.version);
    assert.equal(info.labels?.license_type, 'open');
    assert.equal(info.labels?.external_logger_enabled, 'False');
    assert.deepEqual(Object.keys(info.labels ?? {}).sort(), [
      'external_logger_enabled', 'external_logger_type', 'insights_analytics', 'install_uuid', 'license_expiry', 'license_type', 'pendo_tracking', 'tower_url_base', 'tower_version',
    ]);
  });

  it('gives each instance its capacity as /api/v2/instances/ does, consumed by the runs waiting and running there', async () => {
    const now = await scrape(t);
    const instances = (await t.get('/api/v2/instances/')).body.results;
    assert.equal(samples(now, 'awx_instance_capacity').length, instances.length);
    for (const instance of instances) {
      const labels = { hostname: instance.hostname, instance_uuid: instance.uuid };
      assert.equal(value(now, 'awx_instance_capacity', labels), instance.capacity);
      assert.equal(value(now, 'awx_instance_consumed_capacity', labels), instance.consumed_capacity);
      assert.equal(value(now, 'awx_instance_remaining_capacity', labels), instance.capacity - instance.consumed_capacity);
      assert.equal(value(now, 'awx_instance_cpu', labels), Number(instance.cpu));
      const [info] = samples(now, 'awx_instance_info', labels);
      assert.equal(info.labels?.enabled, instance.enabled ? 'True' : 'False');
      assert.equal(info.labels?.node_type, instance.node_type);
    }
    const here = instances.find((i: { hostname: string }) => i.hostname === 'test-node');
    assert.equal(here?.consumed_capacity, 2, 'the seeded waiting and running runs');
  });

  it('lets superusers and system auditors read, nobody else: 401 anonymous, 403 a plain user or any organization role', async () => {
    assert.equal((await t.get('/api/v2/metrics/', { as: null })).status, 401);
    for (const who of [plain, orgAdmin, orgAuditor]) {
      const res = await t.get('/api/v2/metrics/', { as: who });
      assert.equal(res.status, 403, `${who.username}: ${res.text}`);
      assert.equal((await t.get('/api/v2/metrics/?format=json', { as: who })).status, 403);
      assert.equal((await t.request('OPTIONS', '/api/v2/metrics/', { as: who })).status, 403);
    }
    assert.ok((await scrape(t, '', systemAuditor)).has('awx_users_total'));
    assert.equal((await t.post('/api/v2/metrics/', {}, { as: systemAuditor })).status, 405);
  });

  it('answers anyone when ALLOW_METRICS_FOR_ANONYMOUS_USERS is on, as AWX does', async () => {
    assert.equal((await t.patch('/api/v2/settings/authentication/', { ALLOW_METRICS_FOR_ANONYMOUS_USERS: true })).status, 200);
    try {
      assert.equal((await t.get('/api/v2/metrics/', { as: null })).status, 200);
      assert.equal((await t.get('/api/v2/metrics/', { as: plain })).status, 200);
    } finally {
      assert.equal((await t.patch('/api/v2/settings/authentication/', { ALLOW_METRICS_FOR_ANONYMOUS_USERS: false })).status, 200);
    }
    assert.equal((await t.get('/api/v2/metrics/', { as: null })).status, 401);
  });
});

describe('GET /api/v2/metrics/: what this node measures', () => {
  let t: TestApp;
  let inventory: number;

  before(async () => {
    t = await createTestApp();
    const org = (await newOrg(t)).id;
    inventory = (await newInventory(t, org, { hosts: ['h1', 'h2'] })).id;
  });
  after(() => t.close());

  it('times requests by route pattern, method and status; an unknown path is `unmatched`', async () => {
    const org = (await newOrg(t)).id;
    await t.get(`/api/v2/organizations/${org}/`);
    await t.get('/api/v2/no_such_thing/');
    const now = await scrape(t);
    assert.ok(observations(now, 'drover_http_request_duration_seconds', { route: '/api/v2/organizations/', method: 'POST', status_code: '201' }) >= 2);
    assert.ok(observations(now, 'drover_http_request_duration_seconds', { route: '/api/v2/organizations/:id/', method: 'GET', status_code: '200', node: 'test-node' }) >= 1);
    assert.ok(observations(now, 'drover_http_request_duration_seconds', { route: 'unmatched', status_code: '404' }) >= 1);
    const urls = samples(now, 'drover_http_request_duration_seconds_count').map((s) => s.labels?.route);
    assert.ok(!urls.includes(`/api/v2/organizations/${org}/`), 'a URL is never a label');
  });

  it('times launches and each gate (a refused launch counted as refused); stores and counts the run\'s events with their lag', async () => {
    const before_ = await scrape(t, '?subsystemonly=1');
    const refused = await t.post('/api/v2/ad_hoc_commands/', { inventory, module_name: 'ping', extra_vars: { ansible_connection: 'ssh' } });
    assert.equal(refused.status, 400, refused.text);
    const created = await t.post('/api/v2/ad_hoc_commands/', { inventory, module_name: 'ping' });
    assert.equal(created.status, 201, created.text);
    const done = await waitForRun(t, created.body.url, 120_000);
    assert.equal(done.status, 'successful', done.job_explanation);
    const events = (await t.get(`/api/v2/ad_hoc_commands/${done.id}/events/?page_size=200`)).body.results;
    // The run's own first line (its execution environment) is written by the service, not ingested from ansible-runner.
    const stored = events.filter((e: { event: string }) => e.event !== 'verbose').length;
    assert.ok(stored > 0);

    const now = await scrape(t, '?subsystemonly=1');
    const grew = (name: string, labels: Record<string, string>) => observations(now, name, labels) - observations(before_, name, labels);
    assert.equal(grew('drover_launch_duration_seconds', { kind: 'ad_hoc_command', outcome: 'launched' }), 1);
    assert.equal(grew('drover_launch_duration_seconds', { kind: 'ad_hoc_command', outcome: 'refused' }), 1);
    // The refused launch was refused by its plan (ad hoc commands take no connection variables): no gate saw it.
    const asked = GATES.map((gate) => [gate.name, grew('drover_gate_duration_seconds', { gate: gate.name, decision: 'allow' })]);
    assert.deepEqual(asked, GATES.map((gate) => [gate.name, 1]));

    assert.equal(value(now, 'drover_events_stored_total', { node: 'test-node' }) - value(before_, 'drover_events_stored_total'), stored);
    assert.equal(grew('drover_event_lag_seconds', {}), stored, 'one lag per stored event');
    assert.ok(!now.has('awx_users_total'), 'subsystemonly leaves out the cluster-wide part');
  });

  it('shows the database pool, the event loop lag and the process', async () => {
    const now = await scrape(t);
    assert.equal(value(now, 'drover_db_pool_max'), t.db.kind === 'embedded' ? 1 : 10);
    assert.ok(value(now, 'drover_db_pool_connections', { state: 'in_use' }) >= 0);
    assert.ok(value(now, 'drover_db_pool_connections', { state: 'idle' }) >= 0);
    assert.ok(value(now, 'drover_db_pool_waiting') >= 0);
    // A scrape reads the cluster-wide values from the database: the next one counts its statements.
    const next = await scrape(t);
    const sent = value(next, 'drover_db_statements_total', { node: 'test-node' });
    assert.ok(sent > value(now, 'drover_db_statements_total', { node: 'test-node' }));
    assert.ok(t.db.poolStats().statements >= sent, 'counted as the database sends them');
    for (const name of ['nodejs_eventloop_lag_seconds', 'nodejs_eventloop_lag_p99_seconds', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes']) {
      assert.equal(samples(now, name, { node: 'test-node' }).length, 1, name);
    }
    assert.deepEqual(samples(now, 'awx_users_total').map((s) => s.labels?.node), [undefined], 'cluster-wide values carry no node');
  });

  it('filters as AWX does: dbonly, subsystemonly, node, metric', async () => {
    const db = await scrape(t, '?dbonly=1');
    assert.ok(db.has('awx_users_total') && db.has('drover_runs_queued'));
    assert.ok(![...db.keys()].some((name) => name.startsWith('nodejs_') || name.startsWith('drover_http')));
    const elsewhere = await scrape(t, '?node=another-node');
    assert.ok(elsewhere.has('awx_users_total') && !elsewhere.has('drover_http_request_duration_seconds'));
    assert.ok((await scrape(t, '?node=another-node&node=test-node')).has('drover_http_request_duration_seconds'));
    const one = await scrape(t, '?subsystemonly=1&metric=drover_launch_duration_seconds&metric=drover_db_pool_max');
    const histogramSeries = /_(bucket|sum|count)$/;
    assert.deepEqual([...one.keys()].filter((name) => !histogramSeries.test(name)).sort(), ['drover_db_pool_max', 'drover_launch_duration_seconds']);
  });

  it('answers JSON for ?format=json and for Accept: application/json (what awxkit sends), as AWX\'s renderer shapes it', async () => {
    const text = await scrape(t, '?dbonly=1');
    for (const res of [await t.get('/api/v2/metrics/?format=json'), await t.get('/api/v2/metrics/', { headers: { accept: 'application/json' } })]) {
      assert.equal(res.status, 200, res.text);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      const users = res.body.awx_users_total;
      assert.deepEqual(users, { help_text: 'Number of users', type: 'gauge', samples: [{ labels: {}, value: value(text, 'awx_users_total') }] });
      assert.deepEqual(res.body.awx_hosts_total.samples.map((s: any) => s.labels.type), ['all', 'active']);
      const http = res.body.drover_http_request_duration_seconds;
      assert.equal(http.type, 'histogram');
      assert.deepEqual([...new Set(http.samples.map((s: any) => s.sample_type))].sort(), ['bucket', 'count', 'sum']);
      assert.ok(http.samples.some((s: any) => s.labels.le === '+Inf' && s.labels.node === 'test-node'));
      // As AWX's parser names a counter's family: without _total.
      assert.equal(res.body.drover_events_stored.type, 'counter');
    }
    assert.equal((await t.get('/api/v2/metrics/?format=xml')).status, 404);
    assert.equal((await t.get('/api/v2/metrics/?format=txt')).headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
  });

  it('is listed at the API root, where the awx CLI finds `awx metrics`', async () => {
    const root = await t.get('/api/v2/');
    assert.equal(root.body.metrics, '/api/v2/metrics/');
    // awxkit's Metrics page: GET with Accept: application/json; its human format lists each key.
    const res = await t.get(root.body.metrics, { headers: { accept: 'application/json' } });
    assert.equal(res.status, 200);
    assert.ok(Object.keys(res.body).includes('awx_system_info'));
    const options = await t.request('OPTIONS', '/api/v2/metrics/');
    assert.equal(options.status, 200);
    assert.equal(options.body.name, 'Metrics');
  });
});
