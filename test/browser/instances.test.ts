import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { newUser } from '../helpers/factories.ts';
import { consolePage } from '../helpers/browser.ts';
import { eventually } from '../helpers/jobs.ts';

describe('console: instances, their health check, enable switch and capacity adjustment', () => {
  let t: TestApp;
  let id: number;
  const instance = async () => (await t.get(`/api/v2/instances/${id}/`)).body;

  before(async () => {
    // The app records its node's instance (test-node, hybrid) as its dispatcher starts.
    t = await createTestApp();
    id = (await t.get('/api/v2/instances/?hostname=test-node')).body.results[0].id;
  });
  after(() => t.close());

  it('in the list: runs a health check, switches the instance off and on, and adjusts its capacity', async () => {
    const c = await consolePage(t, undefined, '/instances');
    try {
      const { page } = c;
      const row = page.getByRole('row', { name: /test-node/ });
      const checkedBefore = (await instance()).last_health_check;
      await row.getByRole('button', { name: 'Run health check on test-node' }).click();
      await eventually(async () => (await instance()).last_health_check !== checkedBefore || null, 20_000, 'a new health check');

      const enabled = row.getByRole('switch', { name: 'test-node enabled' });
      assert.equal(await enabled.isChecked(), true);
      await enabled.locator('xpath=..').click();
      await eventually(async () => (await instance()).enabled === false || null, 10_000, 'the instance disabled');
      await row.getByText('Off', { exact: true }).waitFor();
      assert.equal((await instance()).capacity, 0, 'a disabled instance offers no capacity');
      await enabled.locator('xpath=..').click();
      await eventually(async () => (await instance()).enabled === true || null, 10_000, 'the instance enabled again');

      const { cpu_capacity: cpu, mem_capacity: mem } = await instance();
      const slider = row.getByRole('slider', { name: 'Capacity adjustment of test-node' });
      await slider.focus();
      for (let i = 0; i < 3; i++) await slider.press('ArrowRight');
      await row.getByText(/Adjustment 0\.3: capacity/).waitFor();
      const adjusted = await eventually(async () => {
        const now = await instance();
        return now.capacity_adjustment === 0.3 ? now : null;
      }, 10_000, 'capacity_adjustment 0.3 saved');
      assert.equal(adjusted.capacity, Math.floor(Math.min(cpu, mem) + Math.abs(mem - cpu) * 0.3));
      await c.shot('instances-list-controls');
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });

  it('on the instance page: Run health check says it runs, beside the switch and the slider', async () => {
    const c = await consolePage(t, undefined, `/instances/${id}`);
    try {
      const { page } = c;
      await page.getByRole('switch', { name: 'test-node enabled' }).waitFor();
      await page.getByRole('slider', { name: 'Capacity adjustment of test-node' }).waitFor();
      await page.getByRole('button', { name: 'Run health check' }).click();
      await page.getByText('Health check is running for test-node.').waitFor();
      await c.shot('instance-detail-health-check');
    } finally {
      await c.close();
    }
  });

  it('a system auditor sees the controls but may change nothing', async () => {
    const auditor = await newUser(t, { is_system_auditor: true });
    const c = await consolePage(t, auditor, '/instances');
    try {
      const { page } = c;
      const row = page.getByRole('row', { name: /test-node/ });
      await row.getByRole('switch', { name: 'test-node enabled' }).waitFor();
      assert.equal(await row.getByRole('switch', { name: 'test-node enabled' }).isDisabled(), true);
      assert.equal(await row.getByRole('button', { name: 'Run health check on test-node' }).count(), 0);
      assert.equal(await row.getByRole('slider', { name: 'Capacity adjustment of test-node' }).getAttribute('aria-disabled'), 'true');
    } finally {
      await c.close();
    }
  });
});
