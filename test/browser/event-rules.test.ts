import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { newOrg, newUser, type User } from '../helpers/factories.ts';
import { consolePage } from '../helpers/browser.ts';
import { pickReference } from '../helpers/console-forms.ts';
import { sendEvent } from '../helpers/eda.ts';
import { eventually } from '../helpers/jobs.ts';
import { makeWorkflow } from '../helpers/workflows.ts';

const HOSTILE = '<img src=x onerror=alert(1)>';

describe('console: event rules and event logs', () => {
  let t: TestApp;
  let org: number;
  let template: number;
  let workflow: number;
  let auditor: User;
  let otherAdmin: User;
  /** Made through the form by the first test. */
  let ruleId: number;
  /** Made through the API: fires on every event, launching an empty workflow. */
  let hostileRule: { id: number; path: string };
  let hostileLog: number;

  const key = async (id: number) => (await t.get(`/api/v2/event_rules/${id}/webhook_key/`)).body.webhook_key as string;
  const deliver = async (rule: { id: number; path: string }, payload: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const res = await sendEvent(t, rule.path, await key(rule.id), payload, { headers });
    assert.equal(res.status, 202, res.text);
    return eventually(async () => {
      const log = (await t.get(`/api/v2/event_logs/${res.body.event_log_id}/`)).body;
      return log.status !== 'received' ? log : null;
    }, 20_000, `event ${res.body.event_log_id} evaluated`);
  };
  const runCount = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM unified_jobs'))[0].n;

  before(async () => {
    t = await createTestApp();
    org = (await newOrg(t, { name: 'Events org' })).id;
    const other = (await newOrg(t, { name: 'Other org' })).id;
    const inventory = (await t.post('/api/v2/inventories/', { name: 'Fleet', organization: org })).body.id;
    const project = (await t.post('/api/v2/projects/', { name: 'Plays', organization: org, scm_type: '' })).body.id;
    [{ id: template }] = await t.db.query<{ id: number }>(
      "INSERT INTO job_templates (name, organization_id, project_id, inventory_id, playbook) VALUES ('Deploy app', $1, $2, $3, 'deploy.yml') RETURNING id", [org, project, inventory],
    );
    const theirProject = (await t.post('/api/v2/projects/', { name: 'Their plays', organization: other, scm_type: '' })).body.id;
    await t.db.query("INSERT INTO job_templates (name, organization_id, project_id, playbook) VALUES ('Deploy theirs', $1, $2, 'deploy.yml')", [other, theirProject]);
    workflow = (await makeWorkflow(t, org, 'Empty flow', {}, [])).id;
    const made = await t.post('/api/v2/event_rules/', {
      name: 'Catch all', organization: org, webhook_path: 'catch-all',
      conditions: [{ jinja2_expression: 'event.note is defined', description: 'has a note' }],
      actions: [{ action_type: 'launch_workflow', target_id: workflow, description: 'run the flow' }],
    });
    assert.equal(made.status, 201, made.text);
    hostileRule = { id: made.body.id, path: 'catch-all' };
    auditor = await newUser(t, { username: 'events-auditor', auditor: org });
    otherAdmin = await newUser(t, { username: 'other-admin', admin: other });
  });
  after(() => t.close());

  it('creates a rule through its form (two conditions, a launch action), shows API errors by their rows, lists it, disables and enables it', async () => {
    const c = await consolePage(t, undefined, '/event_rules/add');
    try {
      const { page } = c;
      await page.locator('#field-name').fill('Critical alerts');
      await pickReference(page, 'field-organization', 'Events org');
      await page.locator('#field-webhook_path').fill('critical alerts');
      await page.getByRole('button', { name: 'Add condition' }).click();
      await page.getByRole('button', { name: 'Add condition' }).click();
      // Typed in the wrong order, then put right with Move up.
      await page.locator('#field-conditions-0-expression').fill('event.team == "ops"');
      await page.locator('#field-conditions-0-description').fill('ops team');
      await page.locator('#field-conditions-1-expression').fill('event.severity ==');
      await page.locator('#field-conditions-1-description').fill('critical only');
      await page.getByRole('button', { name: 'Move Condition 2 up' }).click();
      assert.equal(await page.locator('#field-conditions-0-description').inputValue(), 'critical only');
      // Targets are offered from the rule's organization only.
      await page.locator('#field-actions-0-target').fill('Deploy');
      await page.getByRole('option', { name: 'Deploy app', exact: true }).waitFor();
      assert.equal(await page.getByRole('option', { name: 'Deploy theirs' }).count(), 0);
      await page.locator('#field-actions-0-target').fill('');
      await pickReference(page, 'field-actions-0-target', 'Deploy app');
      await page.locator('#field-actions-0-description').fill('deploy it');
      await page.locator('#field-actions-0-extra_vars').fill('region: eu\nretries: 2');

      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.locator('#field-webhook_path-help').filter({ hasText: 'Enter a slug' }).waitFor();
      await page.locator('li[data-condition="1"] [data-row-error]').filter({ hasText: 'Expression syntax error' }).waitFor();
      assert.equal(await page.locator('li[data-condition="2"] [data-row-error]').count(), 0);
      assert.equal((await t.get('/api/v2/event_rules/?name=Critical+alerts')).body.count, 0, 'nothing was saved');
      await c.shot('event-rule-form-errors');

      await page.locator('#field-webhook_path').fill('critical-alerts');
      await page.locator('#field-conditions-0-expression').fill('event.severity == "critical"');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.waitForURL(/\/event_rules\/\d+$/);
      ruleId = Number(new URL(page.url()).pathname.split('/').pop());
      const saved = (await t.get(`/api/v2/event_rules/${ruleId}/`)).body;
      assert.equal(saved.name, 'Critical alerts');
      assert.equal(saved.organization, org);
      assert.equal(saved.enabled, true);
      assert.equal(saved.source_type, 'webhook_generic');
      assert.deepEqual(saved.conditions, [
        { jinja2_expression: 'event.severity == "critical"', description: 'critical only' },
        { jinja2_expression: 'event.team == "ops"', description: 'ops team' },
      ]);
      assert.deepEqual(saved.actions, [{ action_type: 'launch_job_template', target_id: template, extra_vars: { region: 'eu', retries: 2 }, description: 'deploy it' }]);

      await page.getByRole('heading', { name: 'Critical alerts', level: 1 }).waitFor();
      await page.locator('table[aria-label="Rule actions"]').getByRole('link', { name: 'Deploy app' }).waitFor();
      await page.locator('table[aria-label="Rule conditions"]').getByText('event.team == "ops"').waitFor();
      await c.shot('event-rule-detail');

      await c.open('/event_rules');
      const row = page.locator('table[aria-label="Event rules"] tbody tr').filter({ hasText: 'Critical alerts' });
      await row.getByRole('link', { name: 'Events org' }).waitFor();
      await row.getByText('Generic webhook').waitFor();
      await row.locator('[data-enabled="true"]').waitFor();
      await c.shot('event-rules-list');
      await row.getByRole('button', { name: 'Disable Critical alerts' }).click();
      await row.locator('[data-enabled="false"]').waitFor();
      assert.equal((await t.get(`/api/v2/event_rules/${ruleId}/`)).body.enabled, false);
      await row.getByRole('button', { name: 'Enable Critical alerts' }).click();
      await row.locator('[data-enabled="true"]').waitFor();
      assert.equal((await t.get(`/api/v2/event_rules/${ruleId}/`)).body.enabled, true);
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });

  it('tests conditions on a payload: matched, not matched and an error; bad JSON stays in the form; nothing launches', async () => {
    const runs = await runCount();
    const c = await consolePage(t, undefined, `/event_rules/${ruleId}/tester`);
    try {
      const { page } = c;
      const tests: string[] = [];
      page.on('request', (request) => {
        if (request.url().includes(`/api/v2/event_rules/${ruleId}/test/`)) tests.push(request.postData() ?? '');
      });
      assert.equal(await page.locator('#tester-conditions-0-expression').inputValue(), 'event.severity == "critical"', 'the saved conditions come first');
      assert.equal(await page.locator('#tester-conditions-1-expression').inputValue(), 'event.team == "ops"');

      await page.locator('#tester-payload').fill('{"severity": ');
      await page.getByRole('button', { name: 'Test', exact: true }).click();
      await page.locator('#tester-payload-help').filter({ hasText: 'The payload is not valid JSON' }).waitFor();
      await page.locator('#tester-payload').fill('["not", "an object"]');
      await page.locator('#tester-headers').fill('{"x-team": ');
      await page.getByRole('button', { name: 'Test', exact: true }).click();
      await page.locator('#tester-payload-help').filter({ hasText: 'The payload must be a JSON object' }).waitFor();
      await page.locator('#tester-headers-help').filter({ hasText: 'The headers is not valid JSON' }).waitFor();
      assert.deepEqual(tests, [], 'invalid JSON is not sent');

      await page.locator('#tester-payload').fill(JSON.stringify({ severity: 'critical', team: 'db', note: HOSTILE }, null, 2));
      await page.locator('#tester-headers').fill('{"X-Team": "db"}');
      await page.getByRole('button', { name: 'Add condition' }).click();
      await page.locator('#tester-conditions-2-expression').fill('event.missing.deeper > 1');
      await page.locator('#tester-conditions-2-description').fill(HOSTILE);
      await page.getByRole('button', { name: 'Test', exact: true }).click();
      const results = page.locator('table[aria-label="Condition results"]');
      await results.locator('tr[data-result]').nth(2).waitFor();
      assert.deepEqual(await results.locator('tr[data-result]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-result'))), ['matched', 'not-matched', 'error']);
      await results.locator('tr[data-result="error"] [data-condition-error]').filter({ hasText: /Template error/ }).waitFor();
      await results.locator('tr[data-result="error"]').getByText(HOSTILE, { exact: true }).waitFor();
      await page.locator('section[data-would-fire="false"]').getByText('Would not fire').waitFor();
      const sent = JSON.parse(tests[0]);
      assert.deepEqual(sent.headers, { 'X-Team': 'db' });
      assert.equal(sent.conditions.length, 3, 'the edited conditions are tested');
      await c.shot('event-rule-tester');

      // Conditions are Jinja2: the header the tester sends is seen in lower case.
      await page.locator('#tester-conditions-1-expression').fill("headers['x-team'] == 'db'");
      await page.getByRole('button', { name: 'Remove Condition 3' }).click();
      await page.getByRole('button', { name: 'Test', exact: true }).click();
      await page.locator('section[data-would-fire="true"]').getByText('Would fire').waitFor();

      await page.locator('#tester-conditions-0-expression').fill('event.severity ==');
      await page.getByRole('button', { name: 'Test', exact: true }).click();
      await page.locator('li[data-condition="1"] [data-row-error]').filter({ hasText: 'Expression syntax error' }).waitFor();

      const rule = (await t.get(`/api/v2/event_rules/${ruleId}/`)).body;
      assert.equal(rule.conditions[1].jinja2_expression, 'event.team == "ops"', 'the tester saves nothing');
      assert.equal(rule.fire_count, 0);
      assert.equal(await runCount(), runs, 'testing launches nothing');
      assert.equal(await page.locator('img[src="x"]').count(), 0);
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });

  it('copies the webhook URL, shows and rotates the key', async () => {
    const c = await consolePage(t, undefined, `/event_rules/${ruleId}`);
    try {
      const { page } = c;
      await c.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: c.base });
      const url = page.locator('#event-rule-webhook-url');
      await page.waitForFunction(() => (document.getElementById('event-rule-webhook-url') as HTMLInputElement | null)?.value.endsWith('/critical-alerts/'));
      assert.equal(await url.inputValue(), `${c.base}/api/v2/eda_webhooks/critical-alerts/`);
      await page.getByRole('button', { name: 'Copy Webhook URL' }).click();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), `${c.base}/api/v2/eda_webhooks/critical-alerts/`);
      assert.equal(await page.locator('#event-rule-webhook-key').count(), 0, 'the key is not shown until asked for');

      await page.getByRole('button', { name: 'Show key' }).click();
      await page.locator('#event-rule-webhook-key').waitFor();
      const shown = await page.locator('#event-rule-webhook-key').inputValue();
      assert.equal(shown, await key(ruleId));
      await page.getByRole('button', { name: 'Hide key' }).click();
      await page.locator('#event-rule-webhook-key').waitFor({ state: 'detached' });

      await page.getByRole('button', { name: 'Rotate key' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText('deliveries signed with the current key are refused').waitFor();
      await c.shot('event-rule-rotate');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
      assert.equal(await key(ruleId), shown, 'Cancel rotates nothing');

      await page.getByRole('button', { name: 'Rotate key' }).click();
      await dialog.getByRole('button', { name: 'Rotate', exact: true }).click();
      await dialog.waitFor({ state: 'hidden' });
      await page.waitForFunction((old) => {
        const value = (document.getElementById('event-rule-webhook-key') as HTMLInputElement | null)?.value;
        return !!value && value !== old;
      }, shown);
      const rotated = await page.locator('#event-rule-webhook-key').inputValue();
      assert.equal(rotated, await key(ruleId));
      assert.notEqual(rotated, shown);
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });

  it("lists event logs by status and shows one: results, the launched run, the payload and headers as text", async () => {
    const unmatched = await deliver({ id: ruleId, path: 'critical-alerts' }, { severity: 'low', team: 'ops' });
    assert.equal(unmatched.status, 'unmatched');
    const fired = await deliver(hostileRule, { note: HOSTILE, nested: { list: [1, 2, { deep: true }] } }, { 'x-svc-event': '<b>push</b>' });
    assert.equal(fired.status, 'action_fired', JSON.stringify(fired));
    hostileLog = fired.id;
    const workflowJob = fired.actions_triggered[0].workflow_job;
    assert.ok(workflowJob);

    const c = await consolePage(t, undefined, '/event_logs');
    try {
      const { page } = c;
      const dialogs: string[] = [];
      page.on('dialog', (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      const rows = page.locator('table[aria-label="Event logs"] tbody tr');
      await page.waitForFunction(() => document.querySelectorAll('table[aria-label="Event logs"] tbody tr').length === 2);
      await rows.locator('[data-status="unmatched"]').waitFor();
      await rows.filter({ hasText: 'Catch all' }).getByText('<b>push</b>', { exact: true }).waitFor();
      await c.shot('event-logs');
      await page.locator('#event-log-filter-status').selectOption('action_fired');
      await page.waitForFunction(() => document.querySelectorAll('table[aria-label="Event logs"] tbody tr').length === 1);
      assert.equal(new URL(page.url()).searchParams.get('status'), 'action_fired');
      await rows.first().locator('[data-status="action_fired"]').waitFor();

      await rows.first().getByRole('link').first().click();
      await page.waitForURL(new RegExp(`/event_logs/${hostileLog}$`));
      const heading = page.getByRole('heading', { level: 1 });
      await heading.filter({ hasText: `<b>push</b> #${hostileLog}` }).waitFor();
      assert.equal(await heading.locator('b').count(), 0);
      await page.locator('[data-field="event_rule"]').getByRole('link', { name: 'Catch all' }).waitFor();
      await page.locator('[data-field="job_id"]').getByRole('link', { name: `Workflow job ${workflowJob}` }).waitFor();
      await page.locator('table[aria-label="Condition results"]').locator('tr[data-result="matched"]').getByText('event.note is defined').waitFor();
      const actions = page.locator('table[aria-label="Actions triggered"]');
      await actions.locator('tr[data-outcome="ok"]').getByRole('link', { name: 'Empty flow' }).waitFor();
      await actions.getByRole('link', { name: `Workflow job ${workflowJob}` }).waitFor();

      const payload = page.locator('[data-json-viewer][aria-label="Payload"]');
      await payload.getByText(`"note": "${HOSTILE}"`).waitFor();
      await payload.getByText('"list"').waitFor();
      // Three levels start open; the object inside the list starts folded and opens on a click.
      await payload.getByText('"deep"').waitFor({ state: 'hidden' });
      await payload.locator('details:not([open]) > summary').click();
      await payload.getByText('"deep": true').waitFor();
      await page.locator('table[aria-label="Headers"]').getByText('<b>push</b>', { exact: true }).waitFor();
      assert.equal(await page.locator('img[src="x"]').count(), 0, 'the payload is shown as text');
      await c.shot('event-log-detail');

      await page.getByRole('button', { name: 'Hide payload' }).click();
      await payload.waitFor({ state: 'hidden' });
      await page.getByRole('button', { name: /^Show payload/ }).click();
      await payload.waitFor();
      await payload.locator('summary').filter({ hasText: '"nested"' }).click();
      await payload.getByText('"list"').waitFor({ state: 'hidden' });

      await c.open(`/event_rules/${ruleId}/event_logs`);
      const ruleLogs = page.locator('table[aria-label="Event logs"] tbody tr');
      await ruleLogs.locator('[data-status="unmatched"]').waitFor();
      assert.equal(await ruleLogs.count(), 1);
      assert.deepEqual(dialogs, []);
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });

  it('edits the rule: the editors start from what is saved, an action outside the organization is refused on its row', async () => {
    const before = (await t.get(`/api/v2/event_rules/${ruleId}/`)).body;
    const c = await consolePage(t, undefined, `/event_rules/${ruleId}/edit`);
    try {
      const { page } = c;
      await page.waitForFunction(() => (document.getElementById('field-actions-0-target') as HTMLInputElement | null)?.value === 'Deploy app');
      assert.equal(await page.locator('#field-conditions-1-expression').inputValue(), 'event.team == "ops"');
      assert.match(await page.locator('#field-actions-0-extra_vars').inputValue(), /region: eu\nretries: 2/);

      await pickReference(page, 'field-organization', 'Other org');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.locator('li[data-action="1"] [data-row-error]').filter({ hasText: "There is no job template" }).waitFor();
      assert.deepEqual((await t.get(`/api/v2/event_rules/${ruleId}/`)).body, before, 'nothing changed');

      await pickReference(page, 'field-organization', 'Events org');
      await page.getByRole('button', { name: 'Remove Condition 2' }).click();
      await page.locator('#field-actions-0-extra_vars').fill('{');
      await page.getByRole('button', { name: 'Add action' }).click();
      await page.locator('#field-actions-1-type').selectOption('launch_workflow');
      await pickReference(page, 'field-actions-1-target', 'Empty flow');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.locator('li[data-action="1"] [data-row-error]').filter({ hasText: 'Fix the extra variables' }).waitFor();
      assert.deepEqual((await t.get(`/api/v2/event_rules/${ruleId}/`)).body, before, 'variables that do not parse are not sent');

      await page.locator('#field-actions-0-extra_vars').fill('{"region": "us"}');
      await page.getByRole('button', { name: 'Move Action 2 up' }).click();
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.waitForURL(new RegExp(`/event_rules/${ruleId}$`));
      const saved = (await t.get(`/api/v2/event_rules/${ruleId}/`)).body;
      assert.deepEqual(saved.conditions, [before.conditions[0]]);
      assert.deepEqual(saved.actions, [
        { action_type: 'launch_workflow', target_id: workflow, extra_vars: {}, description: '' },
        { action_type: 'launch_job_template', target_id: template, extra_vars: { region: 'us' }, description: 'deploy it' },
      ]);
      assert.equal(saved.organization, org);
      await page.locator('table[aria-label="Rule actions"]').getByRole('link', { name: 'Empty flow' }).waitFor();
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });

  it("shows an auditor the rules and logs but no key, tester or toggles; another organization's admin sees none of them", async () => {
    const c = await consolePage(t, auditor, `/event_rules/${ruleId}`);
    try {
      const { page } = c;
      await page.getByRole('heading', { name: 'Critical alerts', level: 1 }).waitFor();
      await page.getByText("The key is shown to the organization's admins only.").waitFor();
      for (const name of ['Show key', 'Rotate key', 'Disable', 'Edit', 'Delete']) assert.equal(await page.getByRole('button', { name }).count(), 0, name);
      await c.open(`/event_rules/${ruleId}/tester`);
      await page.getByText("Only the organization's admins may test this rule.").waitFor();
      assert.equal(await page.getByRole('button', { name: 'Test', exact: true }).count(), 0);
      await c.open(`/event_logs/${hostileLog}`);
      await page.locator('[data-json-viewer][aria-label="Payload"]').waitFor();
      await c.shot('event-rule-auditor');
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }

    const o = await consolePage(t, otherAdmin, '/event_rules');
    try {
      const { page } = o;
      await page.getByRole('heading', { name: 'No event rules yet' }).waitFor();
      await o.open('/event_logs');
      await page.getByRole('heading', { name: 'No event logs yet' }).waitFor();
      await o.open(`/event_rules/${ruleId}`);
      await page.getByRole('alert').filter({ hasText: /Not found|Not allowed/ }).waitFor();
      assert.equal(await page.getByText('Critical alerts').count(), 0);
      await o.open(`/event_logs/${hostileLog}`);
      await page.getByRole('alert').filter({ hasText: /Not found|Not allowed/ }).waitFor();
      assert.equal(await page.getByText(HOSTILE).count(), 0);
    } finally {
      await o.close();
    }
  });
});
