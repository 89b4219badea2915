import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { newOrg, newUser, type User } from '../helpers/factories.ts';
import { consolePage } from '../helpers/browser.ts';
import { pickReference } from '../helpers/console-forms.ts';
import { policyInState, startOpaServer, startPolicySync, type OpaServer } from '../helpers/opa-server.ts';

const HOSTILE = '<img src=x onerror=alert(1)>';

describe('console: policies and the decisions log', () => {
  let t: TestApp;
  let opa: OpaServer;
  let org: number;
  let inventory: number;
  let otherAdmin: User;
  let stopSync: () => Promise<void>;

  before(async () => {
    opa = await startOpaServer();
    t = await createTestApp({}, { dispatcher: false });
    stopSync = await startPolicySync(t);
    assert.equal((await t.patch('/api/v2/settings/security/', { OPA_ENABLED: true, OPA_SERVER_URL: opa.url })).status, 200);
    org = (await newOrg(t, { name: 'Policy org', policy_enforcement: 'enforce' })).id;
    const other = (await newOrg(t, { name: 'Elsewhere' })).id;
    inventory = (await t.post('/api/v2/inventories/', { name: 'Fleet', organization: org })).body.id;
    otherAdmin = await newUser(t, { username: 'elsewhere-admin', admin: other });
  });
  after(async () => {
    await stopSync?.();
    await t?.close();
    await opa?.close();
  });

  it('writes a policy with highlighted Rego, shows its sync status, and tests it in the test panel', async () => {
    opa.answer(`drover/org_${org}/prod`, { result: { deny: ['Production needs a ticket.'], warn: ['Friday deploy.'] } });
    const c = await consolePage(t, undefined, '/policies/add');
    try {
      const { page } = c;
      await page.locator('#field-name').fill('No prod on Friday');
      await pickReference(page, 'field-organization', 'Policy org');
      await page.locator('#field-package_path').fill(`drover.org_${org}.prod`);
      await page.locator('#field-rego_module').fill(`package drover.org_${org}.prod\n\n# the rule\ndeny contains "x" if { input.extra_vars.env == "prod" }\n`);
      await page.locator('.drover-rego-layer .drover-rego-keyword', { hasText: 'package' }).first().waitFor();
      await page.locator('.drover-rego-layer .drover-rego-comment', { hasText: '# the rule' }).waitFor();
      await page.locator('.drover-rego-layer .drover-rego-string', { hasText: '"prod"' }).waitFor();
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.waitForURL(/\/policies\/\d+$/);
      const id = Number(new URL(page.url()).pathname.split('/').pop());
      const saved = await policyInState(t, id, 'synced');
      assert.equal(saved.organization, org);
      assert.match(opa.policies.get(`svc_${id}`)!, new RegExp(`package drover\\.org_${org}\\.prod`));
      await page.getByRole('heading', { name: 'No prod on Friday', level: 1 }).waitFor();
      await c.shot('policy-detail');

      await c.open(`/policies/${id}/test`);
      await page.locator('#policy-test-input').fill('{ not json');
      await page.getByRole('button', { name: 'Evaluate' }).click();
      await page.getByText('The input is not valid JSON').waitFor();
      await page.locator('#policy-test-input').fill(JSON.stringify({ extra_vars: { env: 'prod' } }));
      await page.getByRole('button', { name: 'Evaluate' }).click();
      const verdict = page.locator('section[aria-label="Verdict"]');
      await verdict.getByText('Denied', { exact: true }).waitFor();
      await verdict.locator('[aria-label="Denies"]').getByText('Production needs a ticket.').waitFor();
      await verdict.locator('[aria-label="Warnings"]').getByText('Friday deploy.').waitFor();
      assert.deepEqual(opa.evaluations.at(-1)!.input, { extra_vars: { env: 'prod' } });
      await c.shot('policy-test');

      await c.open('/policies');
      const row = page.locator('table[aria-label="Policies"] tbody tr').filter({ hasText: 'No prod on Friday' });
      await row.getByText('synced').waitFor();
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });

  it('lists decisions with filters and shows one with its context; a hostile message stays text; another org sees none', async () => {
    const made = await t.post('/api/v2/policies/', { name: 'Hostile', organization: org, rego_module: `package drover.org_${org}.hostile`, package_path: `drover.org_${org}.hostile` });
    opa.answer(`drover/org_${org}/hostile`, { result: [HOSTILE] });
    const denied = await t.post('/api/v2/ad_hoc_commands/', { inventory, module_name: 'ping' });
    assert.equal(denied.status, 403, denied.text);
    await t.post(`/api/v2/policies/${made.body.id}/disable/`, {});
    const [decision] = (await t.get(`/api/v2/policy_decisions/?policy=${made.body.id}`)).body.results;

    const c = await consolePage(t, undefined, '/policy_decisions');
    try {
      const { page } = c;
      let dialogs = 0;
      page.on('dialog', (dialog) => (dialogs++, void dialog.dismiss()));
      await page.locator('#decision-filter-decision').selectOption('deny');
      await page.waitForURL(/decision=deny/);
      const row = page.locator('table[aria-label="Policy decisions"] tbody tr').filter({ hasText: 'Hostile' });
      await row.getByText(HOSTILE).waitFor();
      await c.shot('policy-decisions');
      await row.getByRole('link').first().click();
      await page.waitForURL(new RegExp(`/policy_decisions/${decision.id}$`));
      await page.locator('[data-field="unified_job"]').getByText('denied: never started').waitFor();
      await page.locator('section[aria-label="Context"]').getByText('"ad_hoc_command"').waitFor();
      assert.equal(await page.locator('img[src="x"]').count(), 0);
      assert.equal(dialogs, 0);
      await c.shot('policy-decision-detail');
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
    const elsewhere = await consolePage(t, otherAdmin, '/policy_decisions');
    try {
      await elsewhere.page.getByText('A decision is recorded each time').waitFor();
    } finally {
      await elsewhere.close();
    }
  });
});
