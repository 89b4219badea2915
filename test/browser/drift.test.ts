import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { grant, newOrg, newUser, type User } from '../helpers/factories.ts';
import { consolePage } from '../helpers/browser.ts';
import { pickReference } from '../helpers/console-forms.ts';
import { baseFacts, saveFacts } from '../helpers/drift.ts';

describe('console: drift', () => {
  let t: TestApp;
  let org: number;
  let web1: number;
  let gatherJob: number;
  let reader: User;
  let rule: number;

  /** A finished playbook run to credit facts to, inserted as bench/ui.ts inserts its job. */
  const finishedJob = async (inventory: number, name: string) => {
    const [job] = await t.db.query<{ id: number }>(
      `INSERT INTO unified_jobs (kind, name, status, inventory_id, organization_id, job_type, playbook, event_processing_finished, started, finished, elapsed, launch_type)
       VALUES ('job', $3, 'successful', $1, $2, 'run', 'facts.yml', true, now() - interval '1 minute', now(), 60, 'manual') RETURNING id`,
      [inventory, org, name],
    );
    return job.id;
  };
  const detection = async (factPath: string) => (await t.get(`/api/v2/drift_detections/?host=${web1}&fact_path=${factPath}`)).body.results[0];

  before(async () => {
    t = await createTestApp();
    org = (await newOrg(t, { name: 'Drift org' })).id;
    const inventory = (await t.post('/api/v2/inventories/', { name: 'Fleet', organization: org })).body.id;
    web1 = (await t.post('/api/v2/hosts/', { name: 'web1', inventory })).body.id;
    const web2 = (await t.post('/api/v2/hosts/', { name: 'web2', inventory })).body.id;
    const baseline = baseFacts();
    await saveFacts(t, { [web1]: baseline, [web2]: baseFacts() }, await finishedJob(inventory, 'Baseline'));
    gatherJob = await finishedJob(inventory, 'Gather facts');
    // web1: kernel (critical), packages (medium) and app_version (low); web2: app_version only.
    await saveFacts(t, {
      [web1]: { ...baseline, ansible_kernel: '6.5.0-2', ansible_packages: { openssl: [{ version: '3.0.2' }], curl: [{ version: '7.88' }] }, app_version: '1.1' },
      [web2]: baseFacts({ app_version: '2.0' }),
    }, gatherJob);

    const hook = await t.post('/api/v2/notification_templates/', { name: 'drift hook', organization: org, notification_type: 'webhook', notification_configuration: { url: 'http://127.0.0.1:9/drift', headers: {} } });
    assert.equal(hook.status, 201, hook.text);
    const seeded = await t.post('/api/v2/drift_alert_rules/', { name: 'Seeded rule', organization: org, notification_template: hook.body.id, enabled: false });
    assert.equal(seeded.status, 201, seeded.text);
    rule = seeded.body.id;
    reader = await newUser(t, { username: 'drift-reader', member: org });
    await grant(t, reader, `/api/v2/inventories/${inventory}/`, 'read_role');
  });
  after(() => t.close());

  it('lists drift with its summary, filters by severity, exports the filtered CSV, and shows a detection before and after', async () => {
    const c = await consolePage(t, undefined, '/drift_detections');
    try {
      const { page } = c;
      await page.locator('[data-summary="total"] [data-count]').filter({ hasText: /^4$/ }).waitFor();
      await page.locator('[data-summary="critical"] [data-count]').filter({ hasText: /^1$/ }).waitFor();
      await page.locator('[data-summary="unacknowledged"] [data-count]').filter({ hasText: /^4$/ }).waitFor();
      const rows = page.locator('table[aria-label="Drift"] tbody tr');
      await page.waitForFunction(() => document.querySelectorAll('table[aria-label="Drift"] tbody tr').length === 4);
      await page.getByRole('button', { name: 'Acknowledge app_version on web2' }).waitFor();
      await c.shot('drift-list');

      await page.locator('#drift-filter-severity').selectOption('critical');
      await page.waitForFunction(() => document.querySelectorAll('table[aria-label="Drift"] tbody tr').length === 1);
      assert.match(await rows.first().innerText(), /ansible_kernel/);
      assert.equal(new URL(page.url()).searchParams.get('severity'), 'critical');

      const downloading = page.waitForEvent('download');
      await page.getByRole('link', { name: 'Export CSV' }).click();
      const download = await downloading;
      const csv = await readFile(await download.path(), 'utf8');
      assert.match(download.url(), /\/api\/v2\/drift_detections\/export\/\?severity=critical/);
      assert.match(csv, /^ID,Host,Detected At,Category,Severity,Fact Path,Summary,Diff Type,Acknowledged/);
      assert.match(csv, /web1,.*,kernel,critical,ansible_kernel,/);
      assert.doesNotMatch(csv, /app_version|ansible_packages/, 'the export carries the list filter');
      await page.getByLabel('Export from').fill('2026-01-02');
      await page.getByLabel('Export to').fill('2026-01-31');
      const ranged = new URL(String(await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href')), c.base);
      assert.deepEqual(Object.fromEntries(ranged.searchParams), { severity: 'critical', date_from: '2026-01-02', date_to: '2026-01-31' });
      assert.match((await t.get(`${ranged.pathname}${ranged.search}`)).text, /^ID,Host[^\n]*\n?$/, 'nothing was detected in that range');

      await rows.first().getByRole('link').first().click();
      await page.getByRole('heading', { name: 'ansible_kernel', level: 1 }).waitFor();
      await page.locator('[data-field="host"]').getByRole('link', { name: 'web1' }).waitFor();
      await page.locator('[data-field="job"]').getByRole('link', { name: `${gatherJob} - Gather facts` }).waitFor();
      const view = page.getByRole('table', { name: 'ansible_kernel before and after' });
      await view.locator('td[data-side="before"][data-change="removed"]').filter({ hasText: '"6.1.0-1"' }).waitFor();
      await view.locator('td[data-side="after"][data-change="added"]').filter({ hasText: '"6.5.0-2"' }).waitFor();
      await c.shot('drift-detection');

      await page.getByRole('button', { name: 'Acknowledge' }).click();
      await page.locator('[data-field="acknowledged"]').filter({ hasText: /^By admin at / }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Acknowledge' }).count(), 0);
      const stored = await detection('ansible_kernel');
      assert.equal(stored.acknowledged, true);
      assert.equal(stored.summary_fields.acknowledged_by.username, 'admin');
      assert.ok(stored.acknowledged_at);
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });

  it("shows a host's drift as a timeline and compares two of its snapshots", async () => {
    const c = await consolePage(t, undefined, `/hosts/${web1}/drift`);
    try {
      const { page } = c;
      const timeline = page.getByRole('list', { name: 'Drift of web1' });
      const capture = timeline.locator('li[data-capture]').filter({ hasText: `${gatherJob} - Gather facts` });
      await capture.getByText('3 changes').waitFor();
      for (const fact of ['ansible_kernel', 'ansible_packages', 'app_version']) await capture.getByRole('link', { name: fact }).waitFor();

      await page.getByRole('button', { name: 'Compare' }).click();
      const comparison = page.locator('section[aria-label="Comparison"]');
      await comparison.waitFor();
      assert.equal(await comparison.getAttribute('data-diff-count'), '3');
      const packages = page.getByRole('table', { name: 'ansible_packages before and after' });
      await packages.locator('td[data-side="before"][data-change="removed"]').filter({ hasText: '3.0.1' }).waitFor();
      await packages.locator('td[data-side="after"][data-change="added"]').filter({ hasText: '3.0.2' }).waitFor();
      assert.equal(await packages.locator('td[data-side="after"][data-change]').count(), 1, 'only the changed line is marked');
      await c.shot('host-drift');
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });

  it('creates an alert rule through its form, disables it, and lists alerts with their notification status', async () => {
    const c = await consolePage(t, undefined, '/drift_alert_rules/add');
    try {
      const { page } = c;
      await page.locator('#field-name').fill('Kernel watch');
      await pickReference(page, 'field-organization', 'Drift org');
      await pickReference(page, 'field-inventory', 'Fleet');
      await pickReference(page, 'field-notification_template', 'drift hook');
      await page.locator('#field-categories-kernel').check();
      await page.locator('#field-categories-packages').check();
      await page.locator('#field-severity_min').selectOption('high');
      await c.shot('drift-rule-form');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.waitForURL(/\/drift_alert_rules\/\d+$/);
      const id = Number(new URL(page.url()).pathname.split('/').pop());
      const saved = (await t.get(`/api/v2/drift_alert_rules/${id}/`)).body;
      assert.equal(saved.name, 'Kernel watch');
      assert.deepEqual(saved.categories, ['packages', 'kernel']);
      assert.equal(saved.severity_min, 'high');
      assert.equal(saved.enabled, true);
      assert.equal(saved.summary_fields.inventory.name, 'Fleet');
      await page.locator('[data-field="categories"]').filter({ hasText: 'packages, kernel' }).waitFor();

      await page.getByRole('button', { name: 'Disable Kernel watch' }).click();
      await page.getByRole('button', { name: 'Enable Kernel watch' }).waitFor();
      assert.equal((await t.get(`/api/v2/drift_alert_rules/${id}/`)).body.enabled, false);

      await t.db.query(
        `INSERT INTO drift_alerts (alert_rule_id, organization_id, host_id, drift_count, summary, notification_status, notification_error)
         VALUES ($1, $2, $3, 3, '3 drift items on web1', 'failed', 'connection refused'), ($1, $2, $3, 2, '2 drift items on web1', 'sent', '')`,
        [rule, org, web1],
      );
      await c.open('/drift_alerts');
      const failed = page.locator('table[aria-label="Drift alerts"] tbody tr').filter({ has: page.locator('[data-status="failed"]') });
      await failed.locator('[data-notification-error]').filter({ hasText: 'connection refused' }).waitFor();
      await failed.getByRole('link', { name: 'Seeded rule' }).waitFor();
      await page.locator('table[aria-label="Drift alerts"] [data-status="sent"]').waitFor();
      await c.shot('drift-alerts');
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });

  it('a user who may only read the inventory sees drift but no Acknowledge button', async () => {
    const packages = await detection('ansible_packages');
    assert.equal(packages.acknowledged, false);
    const c = await consolePage(t, reader, '/drift_detections');
    try {
      const { page } = c;
      await page.waitForFunction(() => document.querySelectorAll('table[aria-label="Drift"] tbody tr').length === 4);
      assert.equal(await page.getByRole('button', { name: /^Acknowledge/ }).count(), 0);

      await c.open(`/drift_detections/${packages.id}`);
      await page.getByRole('heading', { name: 'ansible_packages', level: 1 }).waitFor();
      await page.locator('[data-field="acknowledged"]').filter({ hasText: 'Not yet' }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Acknowledge' }).count(), 0);
      await c.shot('drift-detection-reader');
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });
});
