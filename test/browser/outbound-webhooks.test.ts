import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { newOrg, newUser, type User } from '../helpers/factories.ts';
import { consolePage } from '../helpers/browser.ts';
import { pickReference } from '../helpers/console-forms.ts';
import { signatureValid, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

describe('console: outbound webhooks', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let org: number;
  let auditor: User;

  before(async () => {
    t = await createTestApp();
    receiver = await startWebhookReceiver();
    assert.equal((await t.patch('/api/v2/settings/security/', { OUTBOUND_URL_ALLOWLIST: ['127.0.0.1'] })).status, 200);
    org = (await newOrg(t, { name: 'Hook org' })).id;
    auditor = await newUser(t, { username: 'hook-auditor', auditor: org });
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  it('adds a webhook from the Event-driven menu with events as checkboxes, sends a test and lists the deliveries', async () => {
    const c = await consolePage(t, undefined, '/');
    try {
      const { page } = c;
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Outbound webhooks' }).click();
      await page.waitForURL(/\/outbound_webhooks$/);
      await page.getByRole('heading', { name: 'No outbound webhooks yet' }).waitFor();
      await page.getByRole('link', { name: 'Add', exact: true }).click();
      await page.waitForURL(/\/outbound_webhooks\/add$/);

      await page.locator('#field-name').fill('Chat ops');
      await pickReference(page, 'field-organization', 'Hook org');
      await page.locator('#field-url').fill(`${receiver.base}/chat`);
      assert.equal(await page.locator('#field-webhook_key').getAttribute('type'), 'password', 'the key is typed unseen');
      await page.locator('#field-webhook_key').fill('typed-signing-key');
      await page.getByRole('checkbox', { name: 'job.failed' }).check();
      await page.getByRole('checkbox', { name: 'workflow.failed' }).check();
      await page.locator('#field-custom_headers').fill('X-Team: ops\n');
      await c.shot('outbound-webhook-form');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.waitForURL(/\/outbound_webhooks\/\d+$/);
      const id = Number(new URL(page.url()).pathname.split('/').pop());
      const saved = (await t.get(`/api/v2/outbound_webhooks/${id}/`)).body;
      assert.equal(saved.name, 'Chat ops');
      assert.deepEqual(saved.events, ['job.failed', 'workflow.failed']);
      assert.deepEqual(saved.custom_headers, { 'X-Team': 'ops' });
      assert.equal(saved.webhook_key, '$encrypted$');
      await page.locator('[data-field="events"]').filter({ hasText: 'job.failed, workflow.failed' }).waitFor();
      assert.equal(await page.locator('[data-field="webhook_key"]').innerText(), '$encrypted$');

      await page.getByRole('button', { name: 'Send test to Chat ops' }).click();
      await page.locator('[data-test-answer="ok"]').filter({ hasText: 'HTTP 200' }).waitFor();
      const [delivered] = receiver.at('/chat');
      assert.equal(delivered.body.event_type, 'test');
      assert.ok(signatureValid(delivered, 'typed-signing-key'), 'signed with the key typed in the form');
      assert.equal(delivered.headers['x-team'], 'ops');
      await page.locator('[data-field="last_status"]').filter({ hasText: '200' }).waitFor();

      await page.getByRole('tab', { name: 'Deliveries' }).click();
      const rows = page.locator('table[aria-label="Deliveries"] tbody tr');
      await rows.first().waitFor();
      assert.equal(await rows.count(), 1);
      const row = rows.first();
      await row.locator('[data-status="sent"]').waitFor();
      assert.match(await row.innerText(), /test[\s\S]*HTTP 200[\s\S]*1/);
      await c.shot('outbound-webhook-deliveries');

      // A URL answering 500: the answer and its error show, and the history says so.
      receiver.script('/chat', [500]);
      await page.getByRole('button', { name: 'Send test to Chat ops' }).click();
      await page.locator('[data-test-answer="failed"]').filter({ hasText: 'HTTP 500' }).waitFor();
      await page.locator('[data-test-error]').filter({ hasText: 'HTTP 500: down' }).waitFor();
      await page.waitForFunction(() => document.querySelectorAll('table[aria-label="Deliveries"] tbody tr').length === 2);
      const failed = rows.first();
      await failed.locator('[data-status="failed"]').waitFor();
      await failed.locator('[data-error]').filter({ hasText: 'HTTP 500: down' }).waitFor();
      await c.shot('outbound-webhook-test-failed');

      await c.open('/outbound_webhooks');
      const listed = page.locator('table[aria-label="Outbound webhooks"] tbody tr').filter({ hasText: 'Chat ops' });
      await listed.locator('[data-last-status="500"]').waitFor();
      await listed.getByRole('button', { name: 'Send test to Chat ops' }).waitFor();
      await c.shot('outbound-webhooks-list');
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });

  it('shows a generated signing key once after the add, to copy into the receiver', async () => {
    const c = await consolePage(t, undefined, '/outbound_webhooks/add');
    try {
      const { page } = c;
      await page.locator('#field-name').fill('Generated');
      await pickReference(page, 'field-organization', 'Hook org');
      await page.locator('#field-url').fill(`${receiver.base}/generated`);
      await page.getByRole('checkbox', { name: 'job.started' }).check();
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      const shown = page.getByLabel('Generated signing key');
      await shown.waitFor();
      const key = await shown.inputValue();
      assert.match(key, /^[A-Za-z0-9_-]{40,}$/);
      await c.shot('outbound-webhook-generated-key');
      await page.getByRole('button', { name: 'Done' }).click();
      await page.waitForURL(/\/outbound_webhooks\/\d+$/);
      assert.equal(await page.locator('[data-field="webhook_key"]').innerText(), '$encrypted$');
      assert.equal(await page.getByLabel('Generated signing key').count(), 0);
      await page.getByRole('button', { name: 'Send test to Generated' }).click();
      await page.locator('[data-test-answer="ok"]').waitFor();
      assert.ok(signatureValid(receiver.at('/generated')[0], key), 'deliveries are signed with the key shown');
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });

  it("shows an organization's auditor the webhooks and their deliveries, with nothing to send or change", async () => {
    const hook = await t.post('/api/v2/outbound_webhooks/', { name: 'Audited', organization: org, url: `${receiver.base}/audited`, events: ['job.started'] });
    assert.equal(hook.status, 201, hook.text);
    assert.equal((await t.post(`/api/v2/outbound_webhooks/${hook.body.id}/test/`, {})).body.ok, true);
    const c = await consolePage(t, auditor, `/outbound_webhooks/${hook.body.id}`);
    try {
      const { page } = c;
      await page.getByRole('heading', { name: 'Audited', level: 1 }).waitFor();
      assert.equal(await page.getByRole('button', { name: /^Send test/ }).count(), 0);
      assert.equal(await page.getByRole('button', { name: 'Edit' }).count(), 0);
      await page.getByRole('tab', { name: 'Deliveries' }).click();
      await page.locator('table[aria-label="Deliveries"] tbody tr [data-status="sent"]').waitFor();
      await c.open('/outbound_webhooks');
      await page.locator('table[aria-label="Outbound webhooks"] tbody tr').filter({ hasText: 'Audited' }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Add', exact: true }).count(), 0);
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });
});
