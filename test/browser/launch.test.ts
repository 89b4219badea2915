import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { consolePage, type ConsolePage } from '../helpers/browser.ts';
import { grant, newUser } from '../helpers/factories.ts';
import { scheduledTemplate } from '../helpers/schedules.ts';
import { eventually } from '../helpers/jobs.ts';
import { createDemoData } from '../../src/server/demo-data.ts';

const jobIdOf = (page: ConsolePage) => Number(/\/jobs\/(\d+)$/.exec(new URL(page.page.url()).pathname)?.[1]);

describe('launching templates from the console', () => {
  let t: TestApp;
  let admin: ConsolePage;

  before(async () => {
    t = await createTestApp();
    assert.equal(await createDemoData(t.services), true);
    admin = await consolePage(t);
  });
  after(async () => {
    await admin?.close();
    await t?.close();
  });

  it('launches the Demo Job Template from the list straight to its job', async () => {
    await admin.open('/job_templates');
    const row = admin.page.getByRole('row', { name: /Demo Job Template/ });
    await admin.shot('launch-template-list');
    await row.getByRole('button', { name: 'Launch Demo Job Template' }).click();
    await admin.page.waitForURL(/\/jobs\/\d+$/);
    const job = await t.get(`/api/v2/jobs/${jobIdOf(admin)}/`);
    assert.equal(job.status, 200, job.text);
    assert.equal(job.body.launch_type, 'manual');
    assert.equal(job.body.name, 'Demo Job Template');
    assert.deepEqual(admin.errors, []);
  });

  it('asks a required survey question before launching, then sends the answer', async () => {
    const { template } = await scheduledTemplate(t, { name: 'Surveyed' });
    const spec = {
      name: '',
      description: '',
      spec: [
        { question_name: 'Target environment', variable: 'target_env', type: 'text', required: true, min: 0, max: 64, default: '' },
        { question_name: 'Retries', variable: 'retries', type: 'integer', required: false, min: 0, max: 9, default: 3 },
      ],
    };
    assert.equal((await t.post(`/api/v2/job_templates/${template.id}/survey_spec/`, spec)).status, 200);
    assert.equal((await t.patch(`/api/v2/job_templates/${template.id}/`, { survey_enabled: true })).status, 200);

    await admin.open(`/job_templates/${template.id}`);
    await admin.page.getByRole('button', { name: 'Launch Surveyed' }).click();
    const wizard = admin.page.getByRole('dialog', { name: 'Launch Surveyed' });
    const answer = wizard.getByLabel('Target environment');
    await answer.waitFor();
    await wizard.getByRole('button', { name: 'Next', exact: true }).click();
    await wizard.getByText('An answer is required.').waitFor();
    assert.equal(await answer.isVisible(), true, 'still on the survey step');
    assert.equal(await wizard.getByRole('button', { name: 'Launch', exact: true }).count(), 0);
    await admin.shot('launch-wizard-survey-required');

    await answer.fill('staging');
    await wizard.getByRole('button', { name: 'Next', exact: true }).click();
    await wizard.getByText('"target_env": "staging"').waitFor();
    await admin.shot('launch-wizard-preview');
    await wizard.getByRole('button', { name: 'Launch', exact: true }).click();
    await admin.page.waitForURL(/\/jobs\/\d+$/);
    const job = await t.get(`/api/v2/jobs/${jobIdOf(admin)}/`);
    assert.equal(job.body.launch_type, 'manual');
    assert.deepEqual(JSON.parse(job.body.extra_vars), { target_env: 'staging', retries: 3 });
  });

  it("shows the API's message on the inventory of a template that asks for it", async () => {
    const { template } = await scheduledTemplate(t, { name: 'Asks inventory', inventory: null, ask_inventory_on_launch: true });
    const before = (await t.get(`/api/v2/job_templates/${template.id}/jobs/`)).body.count;
    await admin.open('/job_templates?search=Asks');
    await admin.page.getByRole('button', { name: 'Launch Asks inventory' }).click();
    const wizard = admin.page.getByRole('dialog', { name: 'Launch Asks inventory' });
    await wizard.getByRole('combobox', { name: 'Inventory' }).waitFor();
    await wizard.getByRole('button', { name: 'Next', exact: true }).click();
    await wizard.getByRole('button', { name: 'Launch', exact: true }).click();
    const help = wizard.locator('#launch-inventory-help');
    await help.filter({ hasText: "Job Template 'inventory' is missing or undefined." }).waitFor();
    await admin.shot('launch-wizard-inventory-error');
    assert.equal((await t.get(`/api/v2/job_templates/${template.id}/jobs/`)).body.count, before, 'nothing launched');
    await wizard.getByRole('button', { name: 'Cancel' }).click();
    await wizard.waitFor({ state: 'detached' });
  });

  it('builds a survey of two questions and saves it', async () => {
    const { template } = await scheduledTemplate(t, { name: 'To survey' });
    await admin.open(`/job_templates/${template.id}/survey`);
    await admin.page.getByRole('button', { name: 'Add question' }).click();
    let dialog = admin.page.getByRole('dialog', { name: 'Add a question' });
    await dialog.getByLabel(/^Question/).fill('Which region?');
    await dialog.getByLabel('Answer variable name').fill('region');
    await dialog.getByLabel('Answer type').selectOption('multiplechoice');
    await dialog.getByLabel('Choices').fill('north\nsouth');
    await dialog.getByLabel('Default answer').selectOption('south');
    await dialog.getByRole('button', { name: 'Add question' }).click();
    await dialog.waitFor({ state: 'detached' });

    await admin.page.getByRole('button', { name: 'Add question' }).click();
    dialog = admin.page.getByRole('dialog', { name: 'Add a question' });
    await dialog.getByLabel(/^Question/).fill('How many?');
    await dialog.getByLabel('Answer variable name').fill('region');
    await dialog.getByLabel('Answer type').selectOption('integer');
    await dialog.getByRole('button', { name: 'Add question' }).click();
    await dialog.getByText('Another question already sets this variable.').waitFor();
    await dialog.getByLabel('Answer variable name').fill('how_many');
    await dialog.getByRole('button', { name: 'Add question' }).click();
    await dialog.waitFor({ state: 'detached' });

    await admin.page.getByRole('button', { name: 'Move How many? up' }).click();
    await admin.shot('survey-builder');
    await admin.page.getByRole('button', { name: 'Save survey' }).click();
    await admin.page.getByText('Survey saved.').waitFor();
    const saved = (await t.get(`/api/v2/job_templates/${template.id}/survey_spec/`)).body;
    assert.deepEqual(saved.spec.map((q: { variable: string; type: string }) => [q.variable, q.type]), [['how_many', 'integer'], ['region', 'multiplechoice']]);
    assert.deepEqual(saved.spec[1].choices, ['north', 'south']);
    assert.equal(saved.spec[1].default, 'south');
    assert.equal(saved.spec[0].required, true);

    await admin.page.getByText('Survey asked at launch').click();
    await eventually(async () => (await t.get(`/api/v2/job_templates/${template.id}/`)).body.survey_enabled === true, 10_000, 'survey_enabled saved');
  });

  it('offers a plain user with only read on a template neither launch nor survey edits', async () => {
    const { template } = await scheduledTemplate(t, { name: 'Read only' });
    const spec = await t.post(`/api/v2/job_templates/${template.id}/survey_spec/`, { name: '', description: '', spec: [{ question_name: 'Color', variable: 'color', type: 'text', required: false }] });
    assert.equal(spec.status, 200, spec.text);
    const reader = await newUser(t);
    await grant(t, reader, `/api/v2/job_templates/${template.id}/`, 'read_role');
    const page = await consolePage(t, reader, `/job_templates/${template.id}`);
    try {
      await page.page.getByRole('heading', { name: 'Read only' }).waitFor();
      await page.page.getByRole('tab', { name: 'Details' }).waitFor();
      assert.equal(await page.page.getByRole('button', { name: /^Launch/ }).count(), 0);
      await page.open(`/job_templates/${template.id}/survey`);
      await page.page.getByText('You may view this survey but not change it.').waitFor();
      await page.shot('survey-read-only');
      await page.page.locator('table[aria-label="Survey questions"]').getByText('color', { exact: true }).waitFor();
      assert.equal(await page.page.getByRole('button', { name: 'Add question' }).count(), 0);
      assert.equal(await page.page.getByRole('button', { name: /^(Edit|Delete|Move) / }).count(), 0);
      assert.equal(await page.page.getByRole('switch', { name: 'Survey asked at launch' }).isDisabled(), true);
      await page.shot('survey-read-only');
    } finally {
      await page.close();
    }
  });
});
