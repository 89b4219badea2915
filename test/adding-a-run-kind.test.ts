import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hasObjectRole } from '../src/api/access.ts';
import { forbidden, ValidationError } from '../src/api/errors.ts';
import { isSuperuser, seesEverything } from '../src/api/access.ts';
import { boolean, choice, datetime, ref, text } from '../src/api/fields.ts';
import { reverse } from '../src/api/relations.ts';
import { defineResource } from '../src/api/resource.ts';
import { viewOptions } from '../src/api/options.ts';
import { objectPermission } from '../src/api/permissions.ts';
import { routeMethods } from '../src/api/resource-routes.ts';
import { serializeRow } from '../src/api/serialize.ts';
import type { InventoryRow, UnifiedJobRow } from '../src/db/tables.ts';
import { inventories } from '../src/resources/inventories/inventory.resource.ts';
import type { Gate, GateInput } from '../src/runs/gates.ts';
import { launchOrRefuse, type Launcher } from '../src/runs/launch.ts';
import type { RunContext, RunKind, RunOutcome, WorkflowNodeLaunch } from '../src/runs/run-kind.ts';
import type { ScheduledLaunch } from '../src/resources/schedules/schedulable.ts';
import type { WebhookLaunch } from '../src/runs/webhooks/delivery-launch.ts';
import { launchDueSchedules } from '../src/task-manager/scheduler.ts';
import { defineRunResource } from '../src/runs/run-resource.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { codeBlocks } from './helpers/docs.ts';
import { eventually, waitForRun } from './helpers/jobs.ts';
import { rruleIn } from './helpers/schedules.ts';
import { launchWorkflow, makeWorkflow, nodeRun } from './helpers/workflows.ts';
import { sendEvent } from './helpers/eda.ts';
import { startOpaServer } from './helpers/opa-server.ts';
import { policyGate } from '../src/policy/gate.ts';
import type { RunRouteModule } from '../src/runs/run-services.ts';

// The example of docs/adding-a-run-kind.md, as written there (only the import paths differ).

/** Inventory reports: the host names of an inventory, written to a run's output. */
const inventoryReports = defineRunResource({
  name: 'inventory_report',
  label: 'Inventory Report List',
  description: 'Lists of the hosts of an inventory, made as runs.',
  fields: {
    inventory: ref('inventory', { readOnly: true }),
  },
  owner: { contentType: 'inventory', column: 'inventory_id' },
  cancelRole: 'update_role',
  template: { plural: 'unified_job_templates', column: 'unified_job_template_id' },
});

/** Writes the inventory's host names to the run's output, one a line. */
async function runInventoryReport(report: UnifiedJobRow, run: RunContext): Promise<RunOutcome> {
  if (!report.inventory_id) return { status: 'failed', explanation: 'The inventory was deleted.' };
  const hosts = await run.db.query<{ name: string }>('SELECT name FROM hosts WHERE inventory_id = $1 ORDER BY name', [report.inventory_id]);
  for (const host of hosts) await run.output(host.name);
  await run.output(`${hosts.length} host(s)`);
  return { status: 'successful' };
}

/** Report templates: a report of one inventory, to make again on a schedule or as a workflow node. */
const inventoryReportTemplates = defineResource({
  name: 'inventory_report_template',
  table: 'inventory_report_templates',
  label: 'Inventory Report Template List',
  description: 'Reports of an inventory made again and again: by schedules and workflow nodes.',
  fields: {
    name: text({ required: true }),
    description: text(),
    inventory: ref('inventory', { required: true }),
    organization: ref('organization', { required: true }),
    status: choice(['never updated', 'pending', 'waiting', 'running', 'successful', 'failed', 'error', 'canceled'], { readOnly: true }),
    last_job: ref('unified_job', { readOnly: true }),
    last_job_run: datetime({ readOnly: true }),
    last_job_failed: boolean({ readOnly: true }),
  },
  ordering: 'id',
  search: ['name', 'description'],
  related: {
    schedules: reverse('schedule', 'schedules', 'unified_job_template_id', 'unified_job_template'),
    inventory_reports: reverse('inventory_report', 'inventory_reports', 'unified_job_template_id'),
  },
  // Superusers only, to keep the example short; a real kind asks the inventory's roles.
  access: {
    visible: (ctx) => (seesEverything(ctx) ? null : 'false'),
    canCreate: (ctx) => isSuperuser(ctx),
    canChange: (ctx) => isSuperuser(ctx),
    canDelete: (ctx) => isSuperuser(ctx),
    canAttach: () => false,
    actions: { execute: (ctx) => isSuperuser(ctx) },
    capabilities: { start: (ctx) => isSuperuser(ctx), schedule: 'start' },
  },
});

const INVENTORY_REPORT = { name: 'inventory_report', templateTable: 'inventory_report_templates' } as const;

/** A report of an inventory (POST /inventories/{id}/report/ {description}): the caller needs the inventory's update_role. */
const inventoryReportLauncher: Launcher<{ description?: unknown }, InventoryRow> = {
  kind: INVENTORY_REPORT,
  async plan(tx, ctx, inventory, input) {
    if (!(await hasObjectRole(ctx, tx, 'inventory', inventory!.id, 'update_role'))) throw forbidden();
    const description = input.description ?? '';
    if (typeof description !== 'string') throw new ValidationError({ description: ['Not a valid string.'] });
    return {
      values: { name: `${inventory!.name} hosts`, description, launch_type: 'manual', inventory_id: inventory!.id, organization_id: inventory!.organization_id },
    };
  },
};

/** The report a template makes, with the launch type of its trigger. */
const templateReport = (template: Record<string, any>, launchType: string) => ({
  values: { name: template.name, description: template.description, launch_type: launchType, unified_job_template_id: template.id, inventory_id: template.inventory_id },
});

/** A due schedule of a report template. */
const scheduledReportLauncher: Launcher<ScheduledLaunch> = {
  kind: INVENTORY_REPORT,
  plan: async (_tx, _ctx, template) => templateReport(template!, 'scheduled'),
};

/** A workflow node whose template is a report template (who may use it was checked when the node was saved). */
const workflowNodeReportLauncher: Launcher<WorkflowNodeLaunch> = {
  kind: INVENTORY_REPORT,
  plan: async (_tx, _ctx, template) => templateReport(template!, 'workflow'),
};

/** A firing event rule whose action launches a report template (who may launch it was checked when the rule was saved). */
const eventRuleReportLauncher: Launcher<WebhookLaunch> = {
  kind: INVENTORY_REPORT,
  plan: async (_tx, _ctx, template) => templateReport(template!, 'webhook'),
};

/** POST /inventories/{id}/report/: starts a report of the inventory and answers 202 with it. */
const reportRoutes: RunRouteModule = (app, services) => {
  const { db } = services;
  routeMethods<InventoryRow>(app, `${inventories.listPath}:id/report/`, objectPermission('inventory', { POST: 'update' }), {
    POST: async (request, reply) => {
      const inventory = request.object;
      const input = (request.body ?? {}) as { description?: unknown };
      const launched = await launchOrRefuse(services.launches, request.ctx, inventoryReportLauncher, inventory, input);
      const body = await serializeRow(db, request.ctx, inventoryReports, launched.run);
      return reply.code(202).send({ inventory_report: launched.run.id, ...body });
    },
    OPTIONS: async () => viewOptions('Inventory Report', 'POST {description}: lists the hosts of the inventory in a new run.'),
  });
};

/** Inventory reports: the host names of an inventory written to a run's output, started by report/. */
const inventoryReportKind: RunKind = {
  ...INVENTORY_REPORT,
  resource: inventoryReports,
  run: runInventoryReport,
  routes: [inventoryReports.runRoutes, reportRoutes],
  templateIsSource: false,
  launchers: { manual: inventoryReportLauncher, schedule: scheduledReportLauncher, workflowNode: workflowNodeReportLauncher, eventRule: eventRuleReportLauncher },
  eventRuleAction: { type: 'launch_inventory_report', label: 'inventory report template', contentType: 'inventory_report_template', role: 'execute_role' },
  // A report lists the hosts its inventory's updates bring: an open one queued before it finishes first.
  waitsFor: { updates: ['inventory_update'] },
  // Policies see a report launch as the report itself, as they see ad hoc commands.
  policy: { resourceTypes: ['inventory_report'], resourceIsRun: true },
  events: {
    fields: ['inventory_report', 'event', 'counter', 'event_display', 'stdout', 'start_line', 'end_line'],
    playbook: false,
    host: false,
    children: false,
    summary: true,
  },
  eventGroup: 'inventory_report_events',
  cleanup: { option: 'inventory-reports', label: 'inventory reports' },
  // Counted on its own in the dashboard's jobs graph, and heard by outbound webhooks as report.<outcome>.
  dashboardJobType: 'inventory_report',
  webhookEvents: { prefix: 'report', outcomes: ['started', 'succeeded', 'failed'] },
};

describe('adding a run kind (docs/adding-a-run-kind.md)', () => {
  let t: TestApp;
  let inventory: number;
  let org: number;
  const seen: GateInput[] = [];
  let deny = false;
  const gate: Gate = {
    name: 'test gate',
    check: async (_tx, launch) => {
      seen.push(launch);
      return deny ? { decision: 'deny', status: 403, message: 'Reports are paused.' } : { decision: 'allow' };
    },
  };
  const reports = async () => (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM unified_jobs WHERE kind = 'inventory_report'`))[0].n;

  before(async () => {
    // The resource listed as in RESOURCES and the kind as in RUN_KINDS; the page's migration run as written.
    t = await createTestApp({}, { gates: [gate, policyGate], extraResources: [inventoryReportTemplates, inventoryReports], extraRunKinds: [inventoryReportKind] });
    const migrations = codeBlocks('adding-a-run-kind.md', 'sql');
    assert.equal(migrations.length, 1);
    await t.db.exec(migrations[0]);
    org = (await t.get('/api/v2/organizations/Default/')).body.id;
    inventory = (await t.post('/api/v2/inventories/', { name: 'reported', organization: org })).body.id;
    for (const name of ['web1', 'db1']) assert.equal((await t.post('/api/v2/hosts/', { name, inventory })).status, 201);
  });
  after(() => t?.close());

  it('a report launched through HTTP passes the gates, runs to successful through the dispatcher and keeps its output', async () => {
    const launched = await t.post(`/api/v2/inventories/${inventory}/report/`, { description: 'weekly' });
    assert.equal(launched.status, 202, launched.text);
    assert.equal(launched.body.type, 'inventory_report');
    assert.equal(launched.body.inventory_report, launched.body.id);
    assert.equal(launched.body.status, 'pending');
    assert.deepEqual(
      seen.map((s) => [s.kind, s.launchType, s.template?.id, s.run.id]),
      [['inventory_report', 'manual', inventory, launched.body.id]],
    );
    const report = await waitForRun(t, `/api/v2/inventory_reports/${launched.body.id}/`);
    assert.equal(report.status, 'successful', report.job_explanation);
    assert.equal(report.description, 'weekly');
    assert.equal(report.inventory, inventory);
    assert.equal(report.execution_node, 'test-node');
    const stdout = await t.get(`/api/v2/inventory_reports/${report.id}/stdout/?format=txt`);
    assert.equal(stdout.status, 200);
    assert.match(stdout.text, /^db1\nweb1\n2 host\(s\)$/m);
    assert.ok((await t.get(`/api/v2/inventory_reports/${report.id}/events/`)).body.count >= 3);
    const unified = (await t.get(`/api/v2/unified_jobs/?id=${report.id}`)).body.results[0];
    assert.equal(unified.url, `/api/v2/inventory_reports/${report.id}/`);
    assert.deepEqual((await t.get(`/api/v2/inventory_reports/${report.id}/cancel/`)).body, { can_cancel: false });
  });

  it("the launcher's refusals (permission, input) leave no run", async () => {
    const reader = await t.createUser('report-reader');
    const readRole = (await t.get(`/api/v2/inventories/${inventory}/`)).body.summary_fields.object_roles.read_role.id;
    assert.equal((await t.post(`/api/v2/users/${reader.id}/roles/`, { id: readRole })).status, 204);
    const count = await reports();
    assert.equal((await t.post(`/api/v2/inventories/${inventory}/report/`, {}, { as: reader })).status, 403);
    const invalid = await t.post(`/api/v2/inventories/${inventory}/report/`, { description: 5 });
    assert.deepEqual([invalid.status, invalid.body], [400, { description: ['Not a valid string.'] }]);
    assert.equal(await reports(), count);
  });

  it("a gate's denial applies to the new kind: its status and message, and no run left", async () => {
    deny = true;
    try {
      const count = await reports();
      const denied = await t.post(`/api/v2/inventories/${inventory}/report/`, {});
      assert.deepEqual([denied.status, denied.body], [403, { detail: 'Reports are paused.' }]);
      assert.equal(await reports(), count);
    } finally {
      deny = false;
    }
  });

  it('a policy applying to its resource type gates its launches and sees the report as the resource', async () => {
    const opa = await startOpaServer();
    try {
      assert.equal((await t.patch('/api/v2/settings/security/', { OPA_ENABLED: true, OPA_SERVER_URL: opa.url, OPA_FAIL_MODE: 'allow' })).status, 200);
      assert.equal((await t.patch(`/api/v2/organizations/${org}/`, { policy_enforcement: 'enforce' })).status, 200);
      const made = await t.post('/api/v2/policies/', {
        name: 'no reports', organization: org, rego_module: `package drover.org_${org}.reports`, package_path: `drover.org_${org}.reports`, applies_to: ['inventory_report'],
      });
      assert.equal(made.status, 201, made.text);
      opa.answer(`drover/org_${org}/reports`, { result: ['Reports need a ticket.'] });
      const count = await reports();
      const denied = await t.post(`/api/v2/inventories/${inventory}/report/`, {});
      assert.deepEqual([denied.status, denied.body], [403, { detail: 'Policy denied launch.', reasons: ['no reports: Reports need a ticket.'] }]);
      assert.equal(await reports(), count);
      const [decision] = (await t.get(`/api/v2/policy_decisions/?policy=${made.body.id}`)).body.results;
      assert.equal(decision.resource_type, 'inventory_report');
      const { context } = (await t.get(`/api/v2/policy_decisions/${decision.id}/`)).body;
      assert.deepEqual([context.resource_type, context.resource_id, context.resource_name], ['inventory_report', decision.unified_job, 'reported hosts']);
      const unknown = await t.post('/api/v2/policies/', { name: 'x', organization: org, rego_module: 'package x', package_path: 'x', applies_to: ['inventory_reports'] });
      assert.equal(unknown.status, 400, unknown.text);
      assert.match(JSON.stringify(unknown.body.applies_to), /Choose from .*inventory_report\b/);
    } finally {
      await t.patch('/api/v2/settings/security/', { OPA_ENABLED: false });
      await opa.close();
    }
  });

  it('its runs show where every kind\'s do: among the types of /unified_jobs/, in the dashboard\'s jobs graph and as outbound webhook events', async () => {
    const options = (await t.request('OPTIONS', '/api/v2/unified_jobs/')).body;
    assert.deepEqual(options.types, ['project_update', 'inventory_update', 'job', 'ad_hoc_command', 'system_job', 'workflow_job', 'workflow_approval', 'inventory_report']);
    assert.deepEqual(options.actions.GET.type.choices.at(-1), ['inventory_report', 'Inventory Report']);
    assert.deepEqual(options.actions.GET.type.choices[2], ['job', 'Playbook Run']);

    const refused = await t.post('/api/v2/outbound_webhooks/', { name: 'bad', organization: org, url: 'http://127.0.0.1:9/reports', events: ['report.canceled'] });
    assert.equal(refused.status, 400, refused.text);
    assert.match(JSON.stringify(refused.body.events), /Choose from job\.started, .*workflow\.failed, report\.started, report\.succeeded, report\.failed\./);
    const hook = await t.post('/api/v2/outbound_webhooks/', { name: 'reports', organization: org, url: 'http://127.0.0.1:9/reports', events: ['report.started', 'report.succeeded'] });
    assert.equal(hook.status, 201, hook.text);
    const launched = await t.post(`/api/v2/inventories/${inventory}/report/`, {});
    assert.equal(launched.status, 202, launched.text);
    assert.equal((await waitForRun(t, `/api/v2/inventory_reports/${launched.body.id}/`)).status, 'successful');
    const deliveries = (await t.get(`/api/v2/outbound_webhooks/${hook.body.id}/deliveries/?order_by=id`)).body.results;
    assert.deepEqual(deliveries.map((d: { event_type: string }) => d.event_type), ['report.started', 'report.succeeded']);
    assert.equal((await t.delete(`/api/v2/outbound_webhooks/${hook.body.id}/`)).status, 204);

    const listed = (await t.get('/api/v2/unified_jobs/?type=inventory_report')).body;
    assert.ok(listed.results.some((r: { id: number }) => r.id === launched.body.id));
    assert.ok(listed.results.every((r: { type: string }) => r.type === 'inventory_report'));
    const successful = async (jobType: string) => {
      const graph = await t.get(`/api/v2/dashboard/graphs/jobs/?period=day&job_type=${jobType}`);
      assert.equal(graph.status, 200, graph.text);
      return (graph.body.jobs.successful as [number, number][]).reduce((sum, [, n]) => sum + n, 0);
    };
    const [job] = await t.db.query<{ id: number }>(
      `INSERT INTO unified_jobs (kind, name, status, launch_type, finished) VALUES ('job', 'a playbook', 'successful', 'manual', now()) RETURNING id`,
    );
    try {
      const reportsDone = listed.results.filter((r: { status: string }) => r.status === 'successful').length;
      const jobsDone = (await t.get('/api/v2/unified_jobs/?type=job&status=successful')).body.count;
      assert.ok(jobsDone >= 1);
      assert.equal(await successful('inventory_report'), reportsDone);
      assert.equal(await successful('playbook_run'), jobsDone);
      assert.equal(await successful('all'), (await t.get('/api/v2/unified_jobs/?status=successful')).body.count);
    } finally {
      await t.db.query('DELETE FROM unified_jobs WHERE id = $1', [job.id]);
    }
    assert.match((await t.request('OPTIONS', '/api/v2/dashboard/graphs/jobs/')).body.description, /job_type all, playbook_run, scm_update, inv_sync or inventory_report\./);
  });

  it('a report waits for an open update of its inventory queued before it, then runs', async () => {
    const [update] = await t.db.query<{ id: number }>(
      `INSERT INTO unified_jobs (kind, name, status, launch_type, inventory_id) VALUES ('inventory_update', 'a source', 'running', 'manual', $1) RETURNING id`, [inventory],
    );
    try {
      const launched = await t.post(`/api/v2/inventories/${inventory}/report/`, {});
      assert.equal(launched.status, 202, launched.text);
      const waiting = await eventually(async () => {
        const report = (await t.get(`/api/v2/inventory_reports/${launched.body.id}/`)).body;
        return report.job_explanation ? report : null;
      }, 30_000, 'the report explains its wait');
      assert.deepEqual([waiting.status, waiting.job_explanation], ['pending', `waiting for inventory_update-${update.id} to finish`]);
      await t.db.query(`UPDATE unified_jobs SET status = 'successful', finished = now() WHERE id = $1`, [update.id]);
      const report = await waitForRun(t, `/api/v2/inventory_reports/${launched.body.id}/`);
      assert.equal(report.status, 'successful', report.job_explanation);
    } finally {
      await t.db.query('DELETE FROM unified_jobs WHERE id = $1', [update.id]);
    }
  });

  describe('with a template: its triggers, events and cleanup, and nothing else edited', () => {
    let template: number;
    const succeeded = (url: string) => waitForRun(t, url).then((run) => {
      assert.equal(run.status, 'successful', run.job_explanation);
      return run;
    });
    before(async () => {
      const made = await t.post('/api/v2/inventory_report_templates/', { name: 'nightly', description: 'every night', inventory, organization: org });
      assert.equal(made.status, 201, made.text);
      template = made.body.id;
    });

    it('a schedule of the template launches a report through its schedule launcher, and the template follows it', async () => {
      const schedule = await t.post('/api/v2/schedules/', { name: 'nightly', unified_job_template: template, rrule: rruleIn(3600) });
      assert.equal(schedule.status, 201, schedule.text);
      assert.equal(schedule.body.summary_fields.unified_job_template.unified_job_type, 'inventory_report');
      await t.db.query("UPDATE schedules SET next_run = now() - interval '1 second' WHERE id = $1", [schedule.body.id]);
      await launchDueSchedules(t.services);
      const listed = await eventually(async () => (await t.get(`/api/v2/inventory_report_templates/${template}/inventory_reports/`)).body.results[0], 30_000, 'a scheduled report');
      const report = await succeeded(`/api/v2/inventory_reports/${listed.id}/`);
      assert.deepEqual([report.launch_type, report.unified_job_template, report.name, report.inventory], ['scheduled', template, 'nightly', inventory]);
      const followed = (await t.get(`/api/v2/inventory_report_templates/${template}/`)).body;
      assert.deepEqual([followed.status, followed.last_job, followed.last_job_failed], ['successful', report.id, false]);
    });

    it('a workflow node of the template starts a report through its workflow-node launcher, and the workflow succeeds with it', async () => {
      const workflow = await makeWorkflow(t, org, 'reports', { report: { template } }, []);
      const workflowJob = await launchWorkflow(t, workflow.id);
      const report = await succeeded(`/api/v2/inventory_reports/${await nodeRun(t, workflowJob, 'report')}/`);
      assert.deepEqual([report.launch_type, report.unified_job_template], ['workflow', template]);
      assert.equal((await succeeded(`/api/v2/workflow_jobs/${workflowJob}/`)).status, 'successful');
    });

    it('an event rule may launch the template through its event rule action, and the firing names the report', async () => {
      const rule = await t.post('/api/v2/event_rules/', {
        name: 'on deploy', organization: org, webhook_path: 'report-on-deploy', conditions: [{ jinja2_expression: 'event.kind == "deploy"', description: 'deploys' }],
        actions: [{ action_type: 'launch_inventory_report', target_id: template }],
      });
      assert.equal(rule.status, 201, rule.text);
      const missing = await t.post('/api/v2/event_rules/', {
        name: 'nothing', organization: org, webhook_path: 'report-missing', conditions: [{ jinja2_expression: 'true', description: 'all' }],
        actions: [{ action_type: 'launch_inventory_report', target_id: inventory }],
      });
      assert.equal(missing.status, 400, missing.text);
      assert.match(missing.text, new RegExp(`There is no inventory report template ${inventory} in the rule's organization`));
      const key = (await t.get(`/api/v2/event_rules/${rule.body.id}/webhook_key/`)).body.webhook_key as string;
      const sent = await sendEvent(t, 'report-on-deploy', key, { kind: 'deploy' });
      assert.equal(sent.status, 202, sent.text);
      const log = await eventually(async () => {
        const read = (await t.get(`/api/v2/event_logs/${sent.body.event_log_id}/`)).body;
        return read.status !== 'received' ? read : null;
      }, 30_000, 'the event evaluated');
      assert.equal(log.status, 'action_fired', JSON.stringify(log));
      const [action] = log.actions_triggered;
      assert.equal(typeof action.inventory_report, 'number', JSON.stringify(action));
      assert.equal(log.job_id, action.inventory_report);
      const report = await succeeded(`/api/v2/inventory_reports/${action.inventory_report}/`);
      assert.deepEqual([report.launch_type, report.unified_job_template], ['webhook', template]);
    });

    it("its events are shown in the kind's shape, and cleanup_jobs deletes its old runs", async () => {
      const [report] = (await t.get(`/api/v2/inventory_report_templates/${template}/inventory_reports/?order_by=id`)).body.results;
      const events = (await t.get(`/api/v2/inventory_reports/${report.id}/events/?order_by=counter`)).body.results;
      const first = events.find((e: { stdout: string }) => e.stdout.startsWith('db1'));
      assert.ok(first, JSON.stringify(events));
      const keys = ['id', 'type', 'url', 'related', 'summary_fields', 'created', 'modified', 'inventory_report', 'event', 'counter', 'event_display', 'stdout', 'start_line', 'end_line'];
      assert.deepEqual(Object.keys(first), keys);
      assert.deepEqual([first.type, first.inventory_report, first.event_display], ['inventory_report_event', report.id, 'Verbose']);
      assert.deepEqual(first.summary_fields.inventory_report, { id: report.id, name: 'nightly', description: 'every night', status: 'successful', failed: false });

      const reportsBefore = (await t.get('/api/v2/inventory_reports/')).body.count;
      assert.ok(reportsBefore >= 3);
      const cleanup = (await t.get('/api/v2/system_job_templates/?job_type=cleanup_jobs')).body.results[0];
      const launched = await t.post(`/api/v2/system_job_templates/${cleanup.id}/launch/`, { extra_vars: { days: 0 } });
      assert.equal(launched.status, 201, launched.text);
      const job = await succeeded(`/api/v2/system_jobs/${launched.body.system_job ?? launched.body.id}/`);
      const stdout = (await t.get(`/api/v2/system_jobs/${job.id}/stdout/?format=txt`)).text;
      assert.match(stdout, new RegExp(`^inventory reports: ${reportsBefore} deleted, 0 skipped\\.$`, 'm'));
      assert.equal((await t.get('/api/v2/inventory_reports/')).body.count, 0);
    });
  });
});
