import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { consolePage, type ConsolePage } from '../helpers/browser.ts';
import { scheduledTemplate } from '../helpers/schedules.ts';

describe('the schedule form', () => {
  let t: TestApp;
  let admin: ConsolePage;

  before(async () => {
    t = await createTestApp();
    admin = await consolePage(t);
  });
  after(async () => {
    await admin?.close();
    await t?.close();
  });

  it('builds a weekly Monday and Friday rule, previews its runs and saves it', async () => {
    const { template } = await scheduledTemplate(t, { name: 'Weekly work' });
    await admin.open(`/job_templates/${template.id}/schedules`);
    await admin.page.getByRole('link', { name: 'Add' }).first().click();
    await admin.page.waitForURL(/\/schedules\/add\?/);
    const page = admin.page;
    await page.getByLabel(/^Name/).fill('Mondays and Fridays');
    await page.getByLabel('Start date').fill('2031-03-03');
    await page.getByLabel('Start time').fill('09:30');
    await page.getByLabel('Time zone').selectOption('Europe/Paris');
    await page.getByLabel('Repeat frequency').selectOption('week');
    await page.getByLabel('Monday').check();
    await page.getByLabel('Friday').check();
    await page.getByTestId('schedule-rrule').filter({ hasText: 'BYDAY=MO,FR' }).waitFor();

    // The preview answers for the rule as it now reads: ten runs, all Mondays or Fridays at 09:30.
    await page.waitForFunction(() => {
      const items = [...document.querySelectorAll('[data-testid="schedule-preview"] li')].map((li) => li.textContent ?? '');
      // The preview of the Monday-only rule (debounced) may still be on screen: wait for both days.
      return items.length === 10 && items.every((text) => /^(Monday|Friday), \d{4}-\d{2}-\d{2} 09:30$/.test(text))
        && items.some((text) => text.startsWith('Friday'));
    });
    const runs = await page.getByTestId('schedule-preview').locator('li').allTextContents();
    assert.ok(runs.some((r) => r.startsWith('Monday')) && runs.some((r) => r.startsWith('Friday')), runs.join('; '));
    assert.equal(runs[0], 'Monday, 2031-03-03 09:30');
    await admin.shot('schedule-form-weekly');

    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/schedules\/\d+$/);
    const id = Number(/\/schedules\/(\d+)$/.exec(page.url())?.[1]);
    const saved = await t.get(`/api/v2/schedules/${id}/`);
    assert.equal(saved.status, 200, saved.text);
    assert.equal(saved.body.rrule, 'DTSTART;TZID=Europe/Paris:20310303T093000 RRULE:FREQ=WEEKLY;INTERVAL=1;BYDAY=MO,FR');
    assert.equal(saved.body.unified_job_template, template.id);
    assert.equal(saved.body.name, 'Mondays and Fridays');
    assert.deepEqual(admin.errors, []);
  });

  it("shows the API's message about a rule edited as text", async () => {
    const { template } = await scheduledTemplate(t, { name: 'Text rule' });
    await admin.open(`/schedules/add?job_template=${template.id}`);
    await admin.page.getByLabel(/^Name/).fill('Bad rule');
    await admin.page.getByLabel('Edit the rule as text (advanced)').check();
    await admin.page.getByLabel(/^Recurrence rule/).fill('DTSTART;TZID=UTC:20310303T093000 RRULE:FREQ=WEEKLY');
    await admin.page.getByTestId('preview-error').filter({ hasText: 'INTERVAL required in rrule' }).waitFor();
    await admin.shot('schedule-form-rule-error');
    await admin.page.getByRole('button', { name: 'Save' }).click();
    await admin.page.locator('#schedule-rrule-help').filter({ hasText: 'INTERVAL required in rrule' }).waitFor();
    assert.equal((await t.get(`/api/v2/job_templates/${template.id}/schedules/`)).body.count, 0);
  });
});
