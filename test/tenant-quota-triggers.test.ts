import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createTestApp, newInventory, newJobTemplate, newOrg, newProject, type TestApp } from './helpers/app.ts';
import { newSchedule } from './helpers/factories.ts';
import { newCatalogItem } from './helpers/catalog.ts';
import { sendEvent } from './helpers/eda.ts';
import { eventually, waitForRun } from './helpers/jobs.ts';
import { assertQuotaRefusal, lastEventId, makeTenant, quotaEvents, setQuota, usageOf } from './helpers/quota.ts';
import { deliver, pushHeaders, pushPayload } from './helpers/webhook-deliveries.ts';
import { jobNodes, makeWorkflow } from './helpers/workflows.ts';
import { launchDueSchedules } from '../src/task-manager/scheduler.ts';

/**
 * Every trigger obeys the tenant quota gate without code of its own (docs/tenants.md#quotas): a
 * refusal is answered (relaunch, template webhook) or recorded where the trigger shows its outcomes
 * (the schedule's activity stream, the workflow node's run, the event log, the service request).
 */
describe('tenant quota gate: every trigger', () => {
  let t: TestApp;
  let org: number;
  let tenant: number;
  let template: number;

  const DAY_SPENT = /^max_daily_launches is 1 and the organization has launched 1 run today \(UTC \d{4}-\d{2}-\d{2}\)\.$/;
  /** Today's launches at max_daily_launches 1: every counted launch is refused from now on. */
  const spendTheDay = async () => {
    await setQuota(t, tenant, { max_daily_launches: 1 });
    await t.db.query('UPDATE tenant_usage SET daily_launches = 1, daily_date = $2::date WHERE tenant_id = $1', [tenant, new Date().toISOString().slice(0, 10)]);
  };
  const runsOf = async (organization: number) => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM unified_jobs WHERE organization_id = $1', [organization]))[0].n;

  before(async () => {
    t = await createTestApp();
    org = (await newOrg(t)).id;
    const project = await newProject(t, org);
    const inventory = (await newInventory(t, org, { hosts: ['h1'] })).id;
    template = (await newJobTemplate(t, { project, inventory, allow_simultaneous: true })).id;
    tenant = await makeTenant(t, org);
  });
  after(async () => {
    await t?.close();
  });

  it('relaunch: answered 429 with the reasons', async () => {
    await setQuota(t, tenant, {});
    const launched = await t.post(`/api/v2/job_templates/${template}/launch/`, {});
    assert.equal(launched.status, 201, launched.text);
    assert.equal((await waitForRun(t, `/api/v2/jobs/${launched.body.id}/`)).status, 'successful');
    await spendTheDay();
    const from = await lastEventId(t);
    assertQuotaRefusal(await t.post(`/api/v2/jobs/${launched.body.id}/relaunch/`, {}), [DAY_SPENT]);
    const [event] = await quotaEvents(t, tenant, from);
    assert.deepEqual([event.action, event.decision], ['launch job (relaunch)', 'deny']);
  });

  it('schedule: the skipped launch is recorded on the schedule with the reasons, and no run is made', async () => {
    await spendTheDay();
    const schedule = await newSchedule(t, template, { name: 'quota-schedule' });
    await t.db.query("UPDATE schedules SET next_run = now() - interval '1 second' WHERE id = $1", [schedule.id]);
    const runs = await runsOf(org);
    await launchDueSchedules(t.services);
    const record = await eventually(async () => (await t.db.query<{ changes: any }>(
      "SELECT changes FROM activity_stream WHERE object1 = 'schedule' AND object1_id = $1 AND changes ? 'skipped_launch'", [schedule.id],
    ))[0], 10_000, 'the skipped launch recorded');
    assert.match(record.changes.skipped_launch, /^Tenant quota exceeded\. max_daily_launches is 1 and the organization has launched 1 run today/);
    assert.equal(await runsOf(org), runs);
  });

  it('template webhook: the delivery is answered 429 with the reasons, and may be sent again', async () => {
    await setQuota(t, tenant, {});
    const hooked = await t.patch(`/api/v2/job_templates/${template}/`, { webhook_service: 'github' });
    assert.equal(hooked.status, 200, hooked.text);
    const key = (await t.get(`/api/v2/job_templates/${template}/webhook_key/`)).body.webhook_key as string;
    await spendTheDay();
    const body = JSON.stringify(pushPayload('github', 'a'.repeat(40)));
    const guid = randomUUID();
    const from = await lastEventId(t);
    assertQuotaRefusal(await deliver(t, template, 'github', body, pushHeaders('github', key, body, guid)), [DAY_SPENT]);
    assert.equal((await quotaEvents(t, tenant, from))[0].action, 'launch job (webhook)');
    await setQuota(t, tenant, {});
    const again = await deliver(t, template, 'github', body, pushHeaders('github', key, body, guid));
    assert.equal(again.status, 202, again.text);
    await waitForRun(t, `/api/v2/jobs/${again.body.job}/`);
  });

  it('event rule: the event log shows the action failed with the reasons', async () => {
    await setQuota(t, tenant, {});
    const rule = await t.post('/api/v2/event_rules/', {
      name: 'quota-rule', organization: org, webhook_path: 'quota-rule', conditions: [{ jinja2_expression: 'event.kind == "deploy"', description: 'deploys' }],
      actions: [{ action_type: 'launch_job_template', target_id: template }],
    });
    assert.equal(rule.status, 201, rule.text);
    const key = (await t.get(`/api/v2/event_rules/${rule.body.id}/webhook_key/`)).body.webhook_key as string;
    await spendTheDay();
    const sent = await sendEvent(t, 'quota-rule', key, { kind: 'deploy', event_id: 'quota-1' });
    assert.equal(sent.status, 202, sent.text);
    const log = await eventually(async () => {
      const body = (await t.get(`/api/v2/event_logs/${sent.body.event_log_id}/`)).body;
      return body.status !== 'received' ? body : null;
    }, 30_000, 'the event evaluated');
    assert.equal(log.status, 'action_failed', JSON.stringify(log));
    assert.equal(log.actions_triggered[0].ok, false);
    assert.match(log.actions_triggered[0].error, /^Tenant quota exceeded\.; reasons: max_daily_launches is 1 and the organization has launched 1 run today/);
    assert.equal(log.job_id, null);
  });

  it('service catalog: the request fails with the refusal and its reasons', async () => {
    await setQuota(t, tenant, {});
    const item = await newCatalogItem(t, org, { job_template: template });
    await spendTheDay();
    const runs = await runsOf(org);
    const request = await t.post(`/api/v2/service_catalog_items/${item.id}/submit/`, {});
    assert.equal(request.status, 201, request.text);
    assert.equal(request.body.status, 'failed');
    assert.equal(request.body.refusal_detail, 'Tenant quota exceeded.');
    assert.equal(request.body.refusal_reasons.length, 1);
    assert.match(request.body.refusal_reasons[0], DAY_SPENT);
    assert.equal(await runsOf(org), runs);
  });

  it('workflow nodes: the node refused has a failed run explaining why; the workflow job holds no slot and its nodes are counted once, as the workflow', async () => {
    await setQuota(t, tenant, { max_concurrent_jobs: 1, max_daily_launches: 1000 });
    await t.db.query('UPDATE tenant_usage SET daily_launches = 0 WHERE tenant_id = $1', [tenant]);
    const workflow = await makeWorkflow(t, org, 'quota-flow', { a: { template }, b: { template } }, []);
    const launched = await t.post(`/api/v2/workflow_job_templates/${workflow.id}/launch/`, {});
    assert.equal(launched.status, 201, launched.text);
    const finished = await waitForRun(t, `/api/v2/workflow_jobs/${launched.body.id}/`, 120_000);
    assert.equal(finished.status, 'failed');
    const nodes = await jobNodes(t, launched.body.id);
    const runs = await Promise.all(['a', 'b'].map(async (id) => (await t.get(`/api/v2/jobs/${nodes[id].job}/`)).body));
    const refused = runs.filter((r) => /Tenant quota exceeded/.test(r.job_explanation));
    assert.equal(refused.length, 1, JSON.stringify(runs.map((r) => [r.status, r.job_explanation])));
    assert.equal(refused[0].status, 'failed');
    assert.match(refused[0].job_explanation, /reasons: max_concurrent_jobs is 1 and the organization already has 1 active job\./);
    assert.equal(runs.filter((r) => r.status === 'successful').length, 1);
    assert.equal((await usageOf(t, tenant)).daily_launches, 1, 'the workflow counted once');
  });
});
