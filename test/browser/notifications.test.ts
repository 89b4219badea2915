import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { newOrg } from '../helpers/factories.ts';
import { consolePage } from '../helpers/browser.ts';
import { pickReference } from '../helpers/console-forms.ts';
import { startHttpPeer, type HttpPeer } from '../helpers/notification-peers.ts';

describe('console: notification templates', () => {
  let t: TestApp;
  let peer: HttpPeer;

  before(async () => {
    t = await createTestApp();
    peer = await startHttpPeer();
    await newOrg(t, { name: 'Notify org' });
    assert.equal((await t.patch('/api/v2/settings/security/', { OUTBOUND_URL_ALLOWLIST: ['127.0.0.1'] })).status, 200);
  });
  after(async () => {
    await t.close();
    await peer.close();
  });

  it('a webhook template made through its typed form sends a test that the page shows successful', async () => {
    const c = await consolePage(t, undefined, '/notification_templates/add');
    try {
      const { page } = c;
      await page.locator('#field-name').fill('Ops hook');
      await pickReference(page, 'field-organization', 'Notify org');
      await page.locator('#field-notification_type').selectOption('webhook');
      await page.locator('#config-url').fill('not a url');
      await page.locator('#config-headers').fill('{"X-Team": "ops"}');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.locator('#config-url-help').filter({ hasText: /url/i }).waitFor();
      await c.shot('notification-form-error');

      await page.locator('#config-url').fill(`${peer.base}/hook`);
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.waitForURL(/\/notification_templates\/\d+$/);
      const id = Number(new URL(page.url()).pathname.split('/').pop());
      const saved = (await t.get(`/api/v2/notification_templates/${id}/`)).body;
      assert.equal(saved.notification_type, 'webhook');
      assert.equal(saved.notification_configuration.url, `${peer.base}/hook`);
      assert.deepEqual(saved.notification_configuration.headers, { 'X-Team': 'ops' });

      await page.getByRole('button', { name: 'Test Ops hook' }).click();
      await page.locator('[data-test-status="successful"]').waitFor();
      const received = peer.received.filter((r) => r.url === '/hook');
      assert.equal(received.length, 1);
      assert.equal(received[0].headers['x-team'], 'ops');
      await c.shot('notification-test');
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });
});
