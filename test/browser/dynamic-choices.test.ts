import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { consolePage, type ConsolePage } from '../helpers/browser.ts';
import { scheduledTemplate } from '../helpers/schedules.ts';

const jobIdOf = (page: ConsolePage) => Number(/\/jobs\/(\d+)$/.exec(new URL(page.page.url()).pathname)?.[1]);

describe('dynamic survey choices in the console', () => {
  let t: TestApp;
  let admin: ConsolePage;
  let template: any;

  before(async () => {
    t = await createTestApp();
    const made = await scheduledTemplate(t, { name: 'Dynamic' });
    template = made.template;
    for (const name of ['web-1', 'web-2']) assert.equal((await t.post('/api/v2/hosts/', { name, inventory: made.inventory })).status, 201);
    admin = await consolePage(t);
  });
  after(async () => {
    await admin?.close();
    await t?.close();
  });

  it('defines a question whose choices come from a Jinja2 template', async () => {
    await admin.open(`/job_templates/${template.id}/survey`);
    await admin.page.getByRole('button', { name: 'Add question' }).click();
    const dialog = admin.page.getByRole('dialog', { name: 'Add a question' });
    await dialog.getByLabel(/^Question/).fill('Which host?');
    await dialog.getByLabel('Answer variable name').fill('target');
    await dialog.getByLabel('Answer type').selectOption('multiplechoice');
    await dialog.getByLabel('Loaded at launch from a source').check();
    await dialog.getByLabel('Source', { exact: true }).selectOption('jinja2');
    await dialog.getByRole('button', { name: 'Add question' }).click();
    await dialog.getByText('A template that outputs a JSON list.').waitFor();
    await dialog.getByLabel('Template').fill('{{ hosts | tojson }}');
    await admin.shot('survey-dynamic-question');
    await dialog.getByRole('button', { name: 'Add question' }).click();
    await dialog.waitFor({ state: 'detached' });
    await admin.page.getByRole('button', { name: 'Save survey' }).click();
    await admin.page.getByText('Survey saved.').waitFor();
    const saved = (await t.get(`/api/v2/job_templates/${template.id}/survey_spec/`)).body.spec[0];
    assert.deepEqual(saved.dynamic_choices, { enabled: true, source_type: 'jinja2', cache_ttl: 60, template: '{{ hosts | tojson }}' });
    assert.deepEqual(saved.choices, []);
    assert.deepEqual(admin.errors, []);
  });

  it('shows the loaded choices and a failing source in the launch wizard, and launches with a loaded choice', async () => {
    const spec = {
      name: '', description: '', spec: [
        { question_name: 'Which host?', variable: 'target', type: 'multiplechoice', required: true, dynamic_choices: { enabled: true, source_type: 'jinja2', template: '{{ hosts | tojson }}' } },
        { question_name: 'Which ticket?', variable: 'ticket', type: 'multiplechoice', required: false, dynamic_choices: { enabled: true, source_type: 'api_endpoint', url: 'http://127.0.0.1:9/tickets' } },
      ],
    };
    assert.equal((await t.post(`/api/v2/job_templates/${template.id}/survey_spec/`, spec)).status, 200);
    assert.equal((await t.patch(`/api/v2/job_templates/${template.id}/`, { survey_enabled: true })).status, 200);

    await admin.open(`/job_templates/${template.id}`);
    await admin.page.getByRole('button', { name: 'Launch Dynamic' }).click();
    const wizard = admin.page.getByRole('dialog', { name: 'Launch Dynamic' });
    const target = wizard.getByRole('combobox', { name: 'Which host?' });
    await target.locator('option', { hasText: 'web-2' }).waitFor({ state: 'attached' });
    assert.deepEqual(await target.locator('option').allTextContents(), ['Choose one', 'web-1', 'web-2']);
    await wizard.getByText(/The choices could not be loaded: Refused: 127\.0\.0\.1/).waitFor();
    await wizard.getByRole('button', { name: 'Refresh the choices of target' }).click();
    await target.locator('option', { hasText: 'web-2' }).waitFor({ state: 'attached' });
    await admin.shot('launch-wizard-dynamic-choices');
    await target.selectOption('web-2');
    await wizard.getByRole('button', { name: 'Next', exact: true }).click();
    await wizard.getByText('"target": "web-2"').waitFor();
    await wizard.getByRole('button', { name: 'Launch', exact: true }).click();
    await admin.page.waitForURL(/\/jobs\/\d+$/);
    const job = await t.get(`/api/v2/jobs/${jobIdOf(admin)}/`);
    assert.deepEqual(JSON.parse(job.body.extra_vars), { target: 'web-2' });
  });
});
