import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createTestApp, newInventory, newJobTemplate, newOrg, newProject, newUser, type TestApp } from './helpers/app.ts';
import { eventually, waitForRun } from './helpers/jobs.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './helpers/otlp-receiver.ts';
import { startOpaServer, type OpaServer } from './helpers/opa-server.ts';
import { sendEvent } from './helpers/eda.ts';

/**
 * Traces (docs/observability.md): spans exported to a loopback OTLP/HTTP receiver, the tree of a
 * launch down to its run, sampling, settings changed at run time, TRACEPARENT in a playbook's
 * environment, and GET /api/v2/observability/ with its collector probe.
 */
const SHOW_TRACEPARENT = `- hosts: all
  gather_facts: false
  tasks:
    - name: show the trace context
      debug: msg="TRACEPARENT={{ lookup('env', 'TRACEPARENT') }}"
`;

const GATE_SPANS = ['gate tenant quota', 'gate connection variables', 'gate policy', 'gate scanner'];

describe('traces', () => {
  let t: TestApp;
  let a: OtlpReceiver;
  let b: OtlpReceiver;
  let opa: OpaServer;
  let orgId: number;
  let template: number;
  let plain: { username: string; password: string };
  let otherAdmin: { username: string; password: string };
  let auditor: { username: string; password: string };

  const otel = async (values: Record<string, unknown>) => {
    const res = await t.patch('/api/v2/settings/otel/', values);
    assert.equal(res.status, 200, res.text);
  };
  /** Exports every span ended so far, then answers what `receiver` holds. */
  const flushed = async (receiver: OtlpReceiver) => {
    await t.services.tracing.flush();
    return receiver.spans;
  };
  /** What `receiver` holds once a span `wanted` is among it (a request's span ends as its answer is sent, maybe after the client has it). */
  const once = (receiver: OtlpReceiver, wanted: (s: ReceivedSpan) => boolean, what: string) =>
    eventually(async () => ((await flushed(receiver)).some(wanted) ? receiver.spans : null), 10_000, what);
  const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) => spans.filter((s) => s.parentSpanId === parent.spanId && s.traceId === parent.traceId);
  const launch = async () => {
    const res = await t.post(`/api/v2/job_templates/${template}/launch/`, {});
    assert.equal(res.status, 201, res.text);
    return res.body.id as number;
  };

  before(async () => {
    t = await createTestApp();
    [a, b, opa] = await Promise.all([startOtlpReceiver(), startOtlpReceiver(), startOpaServer()]);
    const org = await newOrg(t, { policy_enforcement: 'enforce' });
    orgId = org.id;
    const project = await newProject(t, org, { files: { 'trace.yml': SHOW_TRACEPARENT } });
    const inventory = await newInventory(t, org, { hosts: ['h1'] });
    template = (await newJobTemplate(t, { project, inventory, playbook: 'trace.yml' })).id;
    plain = await newUser(t, { member: org });
    otherAdmin = await newUser(t, { admin: await newOrg(t) });
    auditor = await newUser(t, { is_system_auditor: true });
  });
  after(async () => {
    await t.close();
    await Promise.all([a.close(), b.close(), opa.close()]);
  });

  it('answers /observability/ to superusers and system auditors only, and lists it in the API root', async () => {
    assert.equal((await t.get('/api/v2/')).body.observability, '/api/v2/observability/');
    assert.equal((await t.get('/api/v2/observability/', { as: null })).status, 401);
    for (const who of [plain, otherAdmin]) {
      assert.equal((await t.get('/api/v2/observability/', { as: who })).status, 403, who.username);
      // Nor may they change what it shows.
      assert.equal((await t.request('PATCH', '/api/v2/settings/otel/', { as: who, body: { OTEL_ENABLED: true } })).status, 403, who.username);
    }
    const seen = await t.get('/api/v2/observability/', { as: auditor });
    assert.equal(seen.status, 200, seen.text);
    assert.deepEqual(Object.keys(seen.body).sort(), ['collector_healthy', 'collector_last_check', 'enabled', 'exporter_endpoint', 'sampler', 'sampler_arg', 'service_name']);
    assert.equal(seen.body.enabled, false);
    assert.equal(seen.body.service_name, 'drover');
    assert.equal(seen.body.exporter_endpoint, 'http://127.0.0.1:4318');
    assert.equal(seen.body.sampler, 'parentbased_traceidratio');
    assert.equal(seen.body.sampler_arg, '0.1');
    assert.equal(typeof seen.body.collector_healthy, 'boolean');
    assert.equal((await t.get('/api/v2/settings/otel/')).body.OTEL_ENABLED, false);
  });

  it('refuses bad settings and stores nothing; clamps the ratio', async () => {
    for (const body of [{ OTEL_TRACES_SAMPLER: 'sometimes' }, { OTEL_EXPORTER_ENDPOINT: 'file:///etc/passwd' }, { OTEL_EXPORTER_ENDPOINT: '' }, { OTEL_TRACES_SAMPLER_ARG: 'half' }, { OTEL_ENABLED: true, OTEL_SERVICE_NAME: '' }]) {
      const res = await t.patch('/api/v2/settings/otel/', body);
      assert.equal(res.status, 400, JSON.stringify(body));
    }
    const now = (await t.get('/api/v2/observability/')).body;
    assert.equal(now.enabled, false);
    assert.equal(now.exporter_endpoint, 'http://127.0.0.1:4318');
    await otel({ OTEL_TRACES_SAMPLER_ARG: 5 });
    assert.equal((await t.get('/api/v2/observability/')).body.sampler_arg, '1');
    await otel({ OTEL_TRACES_SAMPLER_ARG: -2 });
    assert.equal((await t.get('/api/v2/observability/')).body.sampler_arg, '0');
  });

  it('makes no span while disabled', async () => {
    await otel({ OTEL_EXPORTER_ENDPOINT: a.endpoint, OTEL_TRACES_SAMPLER: 'always_on' });
    await t.get('/api/v2/ping/');
    assert.equal((await flushed(a)).length, 0);
  });

  it('traces a launch: request, launch, each gate, then the run with its job id; a playbook sees the run span in TRACEPARENT', async () => {
    // A policy the engine allows: its evaluation is a span of the policy gate.
    assert.equal((await t.patch('/api/v2/settings/security/', { OPA_ENABLED: true, OPA_SERVER_URL: opa.url })).status, 200);
    const path = `drover.org_${orgId}.traced`;
    const policy = await t.post('/api/v2/policies/', { name: 'traced', organization: orgId, rego_module: `package ${path}`, package_path: path });
    assert.equal(policy.status, 201, policy.text);
    opa.answer(path.replace(/\./g, '/'), { result: [] });
    await otel({ OTEL_ENABLED: true });
    const job = await launch();
    const spans = await once(a, (s) => s.name === 'POST /api/v2/job_templates/:id/launch/', 'the launch request span');
    const request = spans.find((s) => s.name === 'POST /api/v2/job_templates/:id/launch/');
    assert.ok(request, spans.map((s) => s.name).join(', '));
    assert.equal(request.parentSpanId, '');
    assert.equal(request.attributes['http.request.method'], 'POST');
    assert.equal(request.attributes['http.route'], '/api/v2/job_templates/:id/launch/');
    assert.equal(request.attributes['http.response.status_code'], 201);
    assert.equal(request.attributes['user.id'], 1);
    assert.equal(request.resource['service.name'], 'drover');
    const [launchSpan] = childrenOf(spans, request).filter((s) => s.name === 'launch');
    assert.ok(launchSpan);
    assert.equal(launchSpan.attributes['drover.job.id'], job);
    assert.equal(launchSpan.attributes['drover.job.template_id'], template);
    assert.equal(launchSpan.attributes['drover.launch.outcome'], 'queued');
    const gates = childrenOf(spans, launchSpan).filter((s) => s.name.startsWith('gate '));
    assert.deepEqual(gates.map((g) => g.name).sort(), [...GATE_SPANS].sort());
    for (const gate of gates) assert.equal(gate.attributes['drover.gate.decision'], 'allow');
    const policyGate = gates.find((g) => g.name === 'gate policy')!;
    const [evaluation] = childrenOf(spans, policyGate);
    assert.equal(evaluation?.name, 'policy engine evaluate');
    assert.equal(evaluation.attributes['drover.policy.id'], policy.body.id);

    const done = await waitForRun(t, `/api/v2/jobs/${job}/`);
    assert.equal(done.status, 'successful', done.result_traceback || done.job_explanation);
    const run = await eventually(async () => (await flushed(a)).find((s) => s.name === 'run job' && s.attributes['drover.job.id'] === job), 10_000, 'the run span');
    assert.equal(run.traceId, request.traceId);
    assert.equal(run.parentSpanId, launchSpan.spanId);
    assert.equal(run.attributes['drover.job.template_id'], template);
    assert.equal(run.attributes['drover.node'], t.env.nodeName);
    assert.equal(run.attributes['drover.job.status'], 'successful');
    assert.ok(childrenOf(a.spans, run).some((s) => s.name === 'event batch'), 'event batches are children of the run');

    const stdout = (await t.get(`/api/v2/jobs/${job}/stdout/?format=txt`)).text;
    const shown = /TRACEPARENT=(00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2})/.exec(stdout);
    assert.ok(shown, stdout);
    assert.equal(shown[1], `00-${run.traceId}-${run.spanId}-01`);

    // Background rounds are traces of their own.
    const dispatch = a.spans.find((s) => s.name === 'dispatch');
    assert.ok(dispatch);
    assert.equal(dispatch.parentSpanId, '');
    assert.ok(childrenOf(a.spans, dispatch).some((s) => s.name === 'task manager pass'));
    assert.deepEqual(a.strays, []);
  });

  it('continues a caller trace from a traceparent header, and ignores a malformed one', async () => {
    const caller = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await t.get('/api/v2/ping/', { headers: { traceparent: caller } });
    await t.get('/api/v2/config/', { headers: { traceparent: 'garbage-header' } });
    const spans = await once(a, (s) => s.name === 'GET /api/v2/config/', 'the config request span');
    const continued = spans.find((s) => s.name === 'GET /api/v2/ping/' && s.traceId === '0af7651916cd43dd8448eb211c80319c');
    assert.ok(continued);
    assert.equal(continued.parentSpanId, 'b7ad6b7169203331');
    const fresh = spans.find((s) => s.name === 'GET /api/v2/config/');
    assert.ok(fresh);
    assert.equal(fresh.parentSpanId, '');
  });

  it('honours the sampler: always_off and a ratio of 0 make none; parent-based follows a sampled caller', async () => {
    /** Changes the sampler, then forgets every span made so far (the change's own request's included). */
    const sampler = async (values: Record<string, unknown>) => {
      await otel(values);
      await t.settle();
      await flushed(a);
      a.spans.length = 0;
    };
    await sampler({ OTEL_TRACES_SAMPLER: 'always_off' });
    await waitForRun(t, `/api/v2/jobs/${await launch()}/`);
    await t.get('/api/v2/ping/', { headers: { traceparent: '00-2af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } });
    await t.settle();
    assert.deepEqual((await flushed(a)).map((s) => s.name), []);

    await sampler({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: 0 });
    await t.get('/api/v2/ping/');
    await waitForRun(t, `/api/v2/jobs/${await launch()}/`);
    await t.settle();
    assert.deepEqual((await flushed(a)).map((s) => s.name), []);

    await sampler({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio' });
    await t.get('/api/v2/ping/');
    await t.get('/api/v2/ping/', { headers: { traceparent: '00-1af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } });
    const spans = await once(a, (s) => s.traceId === '1af7651916cd43dd8448eb211c80319c', 'the continued trace');
    await t.settle();
    await flushed(a);
    assert.deepEqual(spans.map((s) => [s.name, s.traceId]), [['GET /api/v2/ping/', '1af7651916cd43dd8448eb211c80319c']]);
  });

  it('takes a new endpoint and service name at run time; sends and event evaluations are traces of their own; stops when disabled', async () => {
    await otel({ OTEL_TRACES_SAMPLER: 'always_on' });
    await flushed(a);
    await otel({ OTEL_EXPORTER_ENDPOINT: b.endpoint, OTEL_SERVICE_NAME: 'drover-test' });
    const before = (await flushed(a)).length;
    await t.get('/api/v2/ping/');
    const atB = await once(b, (s) => s.name === 'GET /api/v2/ping/', 'the ping span at the second receiver');
    const ping = atB.find((s) => s.name === 'GET /api/v2/ping/');
    assert.ok(ping, atB.map((s) => s.name).join(', '));
    assert.equal(ping.resource['service.name'], 'drover-test');
    assert.equal(a.spans.filter((s) => s.name === 'GET /api/v2/ping/').length, a.spans.slice(0, before).filter((s) => s.name === 'GET /api/v2/ping/').length);

    // A notification's send is a trace of its own, not a part of the request that queued it.
    const org = (await t.get('/api/v2/organizations/?name=Default')).body.results[0].id;
    const hook = await t.post('/api/v2/notification_templates/', {
      name: 'traced hook', organization: org, notification_type: 'webhook',
      notification_configuration: { url: `${b.endpoint}/hook`, headers: {} },
    });
    assert.equal(hook.status, 201, hook.text);
    const queued = await t.post(`/api/v2/notification_templates/${hook.body.id}/test/`, {});
    assert.equal(queued.status, 202, queued.text);
    const send = await eventually(async () => (await flushed(b)).find((s) => s.name === 'notification send' && s.attributes['drover.notification.id'] === queued.body.notification), 10_000, 'the send span');
    assert.equal(send.parentSpanId, '');
    assert.equal(send.attributes['drover.notification.template_id'], hook.body.id);
    assert.equal(typeof send.attributes['drover.notification.status'], 'string');

    // So is the evaluation of received events.
    const rule = await t.post('/api/v2/event_rules/', {
      name: 'traced rule', organization: orgId, webhook_path: 'traced', conditions: [{ jinja2_expression: 'event.kind == "deploy"', description: 'deploys' }],
      actions: [{ action_type: 'launch_job_template', target_id: template }],
    });
    assert.equal(rule.status, 201, rule.text);
    const key = (await t.get(`/api/v2/event_rules/${rule.body.id}/webhook_key/`)).body.webhook_key as string;
    // An event the rule does not match: evaluated, nothing launched.
    assert.equal((await sendEvent(t, 'traced', key, { kind: 'audit' })).status, 202);
    const evaluation = await eventually(async () => (await flushed(b)).find((s) => s.name === 'event rules evaluation'), 10_000, 'the evaluation span');
    assert.equal(evaluation.parentSpanId, '');
    assert.equal(evaluation.attributes['drover.eda.events'], 1);

    await otel({ OTEL_ENABLED: false });
    await flushed(b);
    const count = b.spans.length;
    await t.get('/api/v2/ping/');
    assert.equal((await flushed(b)).length, count);
  });

  it('probes the collector: healthy on a listening port, unhealthy on a closed one', async () => {
    await otel({ OTEL_EXPORTER_ENDPOINT: b.endpoint });
    const healthy = await eventually(async () => {
      const body = (await t.get('/api/v2/observability/')).body;
      return body.collector_last_check ? body : null;
    }, 10_000, 'a probe of the listening collector');
    assert.equal(healthy.collector_healthy, true);
    assert.ok(!Number.isNaN(Date.parse(healthy.collector_last_check)));

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await otel({ OTEL_EXPORTER_ENDPOINT: `http://127.0.0.1:${port}` });
    const first = (await t.get('/api/v2/observability/')).body;
    assert.equal(first.exporter_endpoint, `http://127.0.0.1:${port}`);
    const unhealthy = await eventually(async () => {
      const body = (await t.get('/api/v2/observability/')).body;
      return body.collector_last_check ? body : null;
    }, 10_000, 'a probe of the closed port');
    assert.equal(unhealthy.collector_healthy, false);
  });
});
