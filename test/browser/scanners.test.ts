import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { grant, newInventory, newJobTemplate, newOrg, newProject, newUser, type User } from '../helpers/factories.ts';
import { consolePage } from '../helpers/browser.ts';
import { pickReference } from '../helpers/console-forms.ts';
import { waitForRun } from '../helpers/jobs.ts';
import { LINT_FILES } from '../helpers/scanners.ts';

const HOSTILE = '<img src=x onerror=alert(1)>';

/**
 * The console's scanner pages with the real ansible-lint: a scanner written through the form (the
 * API's 400 under its field), its switch, the Scan tab of a warned job with links to the rule and
 * the file, and a blocked launch's findings in the launch dialog and the wizard.
 */
describe('console: scanners and scan results', () => {
  let t: TestApp;
  let org: number;
  let project: number;
  let direct: number;
  let asking: number;
  let member: User;
  let otherAdmin: User;

  before(async () => {
    t = await createTestApp();
    assert.equal((await t.patch('/api/v2/settings/security/', { SCANNER_ENABLED: true })).status, 200);
    org = (await newOrg(t, { name: 'Scan org' })).id;
    const inventory = (await newInventory(t, org, { hosts: ['localhost'] })).id;
    project = (await newProject(t, org, { name: 'Lint project', files: LINT_FILES })).id;
    direct = (await newJobTemplate(t, { project, inventory, playbook: 'lint.yml', name: 'Lint deploy' })).id;
    asking = (await newJobTemplate(t, { project, inventory, playbook: 'lint.yml', name: 'Lint asks limit', ask_limit_on_launch: true })).id;
    member = await newUser(t, { username: 'scan-member', member: org });
    await grant(t, member, `/api/v2/job_templates/${direct}/`, 'execute_role');
    otherAdmin = await newUser(t, { username: 'scan-elsewhere-admin', admin: (await newOrg(t, { name: 'Scan elsewhere' })).id });
  });
  after(async () => {
    await t?.close();
  });

  const scannerNamed = async (name: string) => (await t.get(`/api/v2/scanners/?name=${encodeURIComponent(name)}`)).body.results[0];

  it('adds a scanner through the form, shows the API\'s refusal under its field, and switches it off and on from the list', async () => {
    const c = await consolePage(t, undefined, '/scanners/add');
    try {
      const { page } = c;
      await page.locator('#field-name').fill('Lint gate');
      await pickReference(page, 'field-organization', 'Scan org');
      await page.locator('#field-tool').selectOption('yamllint');
      await page.locator('#field-applies_to-ad_hoc_command').check();
      await page.locator('#field-config').fill('rulesdir: x\n');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.locator('#field-applies_to-help').getByText('yamllint cannot scan ad_hoc_command').waitFor();
      assert.equal(await scannerNamed('Lint gate'), undefined, 'nothing saved');

      await page.locator('#field-tool').selectOption('ansible-lint');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.locator('#field-config-help').getByText('"rulesdir" is not accepted').waitFor();
      assert.equal(await page.locator('#field-config').getAttribute('aria-invalid'), 'true');
      assert.equal(await scannerNamed('Lint gate'), undefined, 'nothing saved');
      await c.shot('scanner-form-refused');

      await page.locator('#field-config').fill('skip_list:\n  - yaml\n');
      await page.locator('#field-applies_to-ad_hoc_command').uncheck();
      await page.locator('#field-applies_to-job_template').check();
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.waitForURL(/\/scanners\/\d+$/);
      await page.getByRole('heading', { name: 'Lint gate', level: 1 }).waitFor();
      const saved = await scannerNamed('Lint gate');
      assert.equal(saved.tool, 'ansible-lint');
      assert.equal(saved.organization, org);
      assert.equal(saved.config, 'skip_list:\n  - yaml\n');
      assert.deepEqual(saved.applies_to, ['job_template']);
      assert.equal(saved.enforcement, 'warn');
      assert.equal(saved.severity_threshold, 'high');
      await page.locator('[data-field="config"]').getByText('skip_list:').waitFor();

      await c.open('/scanners');
      const row = page.locator('table[aria-label="Scanners"] tbody tr').filter({ hasText: 'Lint gate' });
      await row.getByText('ansible-lint').waitFor();
      await row.getByRole('link', { name: 'Scan org' }).waitFor();
      const toggle = row.getByRole('switch', { name: 'Lint gate enabled' });
      assert.equal(await toggle.isChecked(), true);
      await c.shot('scanners');
      // The switch's label takes the click, as a user's pointer does (Playwright's click() would scroll the page sideways).
      const enabledSwitch = row.locator('input[role="switch"]:not([disabled])');
      const flip = async () => {
        await enabledSwitch.waitFor();
        await toggle.locator('xpath=..').hover();
        await page.mouse.down();
        await page.mouse.up();
      };
      await flip();
      await row.getByText('Off', { exact: true }).waitFor();
      assert.equal((await scannerNamed('Lint gate')).enabled, false);
      await flip();
      await row.getByText('On', { exact: true }).waitFor();
      assert.equal((await scannerNamed('Lint gate')).enabled, true);
      await enabledSwitch.waitFor();
      await c.shot('scanners-toggled');
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });

  it("shows a warned job's findings on its Scan tab, linked to the rule and to the file in a web-hosted repository", async () => {
    const launched = await t.post(`/api/v2/job_templates/${direct}/launch/`, {}, { as: member });
    assert.equal(launched.status, 201, launched.text);
    const job = await waitForRun(t, `/api/v2/jobs/${launched.body.id}/`);
    assert.match(job.job_explanation, /^Scanner warning: /);
    const [result] = (await t.get(`/api/v2/scan_results/?unified_job=${job.id}`)).body.results;
    assert.equal(result.status, 'warn');
    // The repository the project was cloned from is local; as a GitHub address the console links its files.
    const cloned = (await t.get(`/api/v2/projects/${project}/`)).body.scm_url;
    await t.db.query('UPDATE projects SET scm_url = $1 WHERE id = $2', ['https://github.com/acme/playbooks.git', project]);
    const findingsOn = (page: Page) => {
      const card = page.locator('[aria-label="Scan by Lint gate"]');
      return { card, row: card.locator('table[aria-label="Findings of Lint gate"] tbody tr').filter({ hasText: 'no-changed-when' }) };
    };

    // The one who launched it sees the findings and the rules' pages.
    const c = await consolePage(t, member, `/jobs/${job.id}`);
    try {
      const { page } = c;
      await page.getByRole('link', { name: "See the scanners' findings" }).click();
      await page.waitForURL(new RegExp(`/jobs/${job.id}/scan$`));
      const { card, row } = findingsOn(page);
      await card.locator('[data-status="warn"]').waitFor();
      const rule = row.getByRole('link', { name: 'no-changed-when' });
      assert.match(String(await rule.getAttribute('href')), /^https:\/\/ansible-lint\.readthedocs\.io\/rules\/no-changed-when\/$/);
      await row.getByText(/^lint\.yml:\d+$/).waitFor();
      assert.equal(await row.locator('[data-severity="high"]').count(), 1);
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }

    // One who may read the project also gets each file at the scanned revision on the repository's site.
    const admin = await consolePage(t, undefined, `/jobs/${job.id}/scan`);
    try {
      const { page } = admin;
      const { card, row } = findingsOn(page);
      const file = row.getByRole('link', { name: /^lint\.yml:\d+$/ });
      const line = (await file.innerText()).split(':')[1];
      assert.equal(await file.getAttribute('href'), `https://github.com/acme/playbooks/blob/${result.scm_revision}/lint.yml#L${line}`);
      await admin.shot('run-scan-tab');

      await card.getByRole('link', { name: `Result #${result.id}` }).click();
      await page.waitForURL(new RegExp(`/scan_results/${result.id}$`));
      await page.locator('[data-field="scm_revision"]').getByText(result.scm_revision).waitFor();
      await page.locator('section[aria-label="Findings"]').getByRole('link', { name: 'no-changed-when' }).waitFor();
      assert.deepEqual(admin.errors, []);
    } finally {
      await admin.close();
      await t.db.query('UPDATE projects SET scm_url = $1 WHERE id = $2', [cloned, project]);
    }

    // A run nothing scanned says so.
    await t.patch('/api/v2/settings/security/', { SCANNER_ENABLED: false });
    const unscanned = await t.post(`/api/v2/job_templates/${direct}/launch/`, {});
    assert.equal(unscanned.status, 201, unscanned.text);
    await t.patch('/api/v2/settings/security/', { SCANNER_ENABLED: true });
    await waitForRun(t, `/api/v2/jobs/${unscanned.body.id}/`);
    const empty = await consolePage(t, undefined, `/jobs/${unscanned.body.id}/scan`);
    try {
      await empty.page.getByRole('heading', { name: 'Not scanned' }).waitFor();
    } finally {
      await empty.close();
    }
  });

  it('lists scan results with filters; a hostile finding stays text and links nowhere; another organization sees none', async () => {
    const [result] = (await t.get('/api/v2/scan_results/?status=warn')).body.results;
    const hostile = [{ rule_id: HOSTILE, severity: 'high', file_path: HOSTILE, line: 1, message: HOSTILE, url: 'javascript:alert(1)', blocking: true }];
    await t.db.query('UPDATE scan_results SET findings = $1::jsonb WHERE id = $2', [JSON.stringify(hostile), result.id]);

    const c = await consolePage(t, undefined, '/scan_results');
    try {
      const { page } = c;
      let dialogs = 0;
      page.on('dialog', (dialog) => (dialogs++, void dialog.dismiss()));
      await page.locator('#scan-filter-status').selectOption('blocked');
      await page.waitForURL(/status=blocked/);
      await page.getByRole('heading', { name: 'No scan results match' }).waitFor();
      await page.locator('#scan-filter-status').selectOption('warn');
      await page.waitForURL(/status=warn/);
      await pickReference(page, 'scan-filter-scanner', 'Lint gate');
      await page.waitForURL(/scanner=\d+/);
      const row = page.locator('table[aria-label="Scan results"] tbody tr').first();
      await row.getByRole('link', { name: 'Lint gate' }).waitFor();
      await c.shot('scan-results');

      await c.open(`/scan_results/${result.id}`);
      const findings = page.locator('section[aria-label="Findings"]');
      await findings.getByText(HOSTILE).first().waitFor();
      assert.equal(await findings.locator('a').count(), 0, 'neither the javascript: rule address nor the file is a link');
      assert.equal(await page.locator('img[src="x"]').count(), 0);
      assert.equal(dialogs, 0);

      await c.open(`/scanners/${result.scanner}/scan_results`);
      await page.locator('table[aria-label="Scan results"] tbody tr').first().waitFor();
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }

    const elsewhere = await consolePage(t, otherAdmin, '/scan_results');
    try {
      await elsewhere.page.getByText('A result is recorded each time').waitFor();
      await elsewhere.open('/scanners');
      await elsewhere.page.getByRole('heading', { name: 'No scanners yet' }).waitFor();
      assert.equal((await t.get(`/api/v2/scan_results/${result.id}/`, { as: otherAdmin })).status, 403);
    } finally {
      await elsewhere.close();
    }
  });

  it("shows an enforcing scanner's refusal with its findings in the launch dialog and in the wizard", async () => {
    const enforcing = await scannerNamed('Lint gate');
    const changed = await t.patch(`/api/v2/scanners/${enforcing.id}/`, { enforcement: 'enforce', name: `Gate ${HOSTILE}` });
    assert.equal(changed.status, 200, changed.text);
    const jobs = async () => (await t.get('/api/v2/jobs/')).body.count;
    const before = await jobs();

    const c = await consolePage(t, member, `/job_templates/${direct}`);
    try {
      const { page } = c;
      let dialogs = 0;
      page.on('dialog', (dialog) => (dialogs++, void dialog.dismiss()));
      await page.getByRole('button', { name: 'Launch Lint deploy' }).click();
      const refusal = page.getByRole('dialog', { name: 'Lint deploy was not launched' });
      await refusal.getByText('Scanner blocked launch.').waitFor();
      await refusal.getByRole('list', { name: 'Reasons' }).getByText(/no-changed-when at lint\.yml:\d+/).waitFor();
      const row = refusal.locator('table[aria-label="Scanner findings"] tbody tr').filter({ hasText: 'no-changed-when' });
      await row.getByText(`Gate ${HOSTILE} (ansible-lint)`).waitFor();
      assert.match(String(await row.getByRole('link', { name: 'no-changed-when' }).getAttribute('href')), /^https:\/\/ansible-lint\.readthedocs\.io\//);
      await row.getByText(/^lint\.yml:\d+$/).waitFor();
      assert.equal(await page.locator('img[src="x"]').count(), 0);
      assert.equal(dialogs, 0);
      await c.shot('launch-scanner-refused');
      await refusal.getByRole('button', { name: 'Close', exact: true }).first().click();
      await refusal.waitFor({ state: 'detached' });
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }

    const admin = await consolePage(t, undefined, `/job_templates/${asking}`);
    try {
      const { page } = admin;
      await page.getByRole('button', { name: 'Launch Lint asks limit' }).click();
      const wizard = page.getByRole('dialog', { name: 'Launch Lint asks limit' });
      await wizard.getByRole('button', { name: 'Next', exact: true }).click();
      await wizard.getByRole('button', { name: 'Launch', exact: true }).click();
      await wizard.getByText('Blocked by a scanner').waitFor();
      await wizard.locator('table[aria-label="Scanner findings"] tbody tr').filter({ hasText: 'no-changed-when' }).waitFor();
      await admin.shot('launch-wizard-scanner-refused');
      assert.deepEqual(admin.errors, []);
    } finally {
      await admin.close();
    }
    assert.equal(await jobs(), before, 'nothing launched');
    assert.equal((await t.get(`/api/v2/scan_results/?scanner=${enforcing.id}&status=blocked`)).body.count, 2);
  });
});
