import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { consolePage, type ConsolePage } from '../helpers/browser.ts';
import { scheduledTemplate } from '../helpers/schedules.ts';
import { eventually } from '../helpers/jobs.ts';
import { hostStatusCounts } from '../../src/ansible/host-status-counts.ts';

/**
 * The console's runs: a job's details, the friendly names of run types, the jobs list's actions,
 * filters and advanced search, and a failure the task ignored. The dispatcher is off so that runs
 * inserted as pending or running stay so while the console acts on them.
 */
describe('console: runs', () => {
  let t: TestApp;
  let admin: ConsolePage;
  let adminId: number;
  let org: number;
  let inventory: number;
  let template: { id: number; name: string; project: number };

  /** A run inserted as the service stores it (bench/ui.ts inserts its job alike). */
  const insertRun = async (fields: Record<string, unknown>): Promise<number> => {
    const row = { kind: 'job', status: 'successful', launch_type: 'manual', job_type: 'run', organization_id: org, created_by_id: adminId, event_processing_finished: true, ...fields };
    const names = Object.keys(row);
    const [inserted] = await t.db.query<{ id: number }>(
      `INSERT INTO unified_jobs (${names.map((n) => `"${n}"`).join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id`,
      Object.values(row),
    );
    return inserted.id;
  };
  const finishedJob = (name: string, extra: Record<string, unknown> = {}) =>
    insertRun({
      name, inventory_id: inventory, project_id: template.project, job_template_id: template.id, unified_job_template_id: template.id, playbook: 'hello.yml',
      started: new Date(Date.now() - 200_000).toISOString(), finished: new Date(Date.now() - 75_000).toISOString(), elapsed: 125, ...extra,
    });
  const statusOf = async (id: number) => (await t.get(`/api/v2/unified_jobs/?id=${id}`)).body.results[0]?.status;

  before(async () => {
    t = await createTestApp({}, { dispatcher: false });
    adminId = (await t.get('/api/v2/me/')).body.results[0].id;
    const made = await scheduledTemplate(t, { name: 'Deploy web' });
    org = made.org;
    inventory = made.inventory;
    template = made.template;
    admin = await consolePage(t);
  });
  after(async () => {
    await admin?.close();
    await t?.close();
  });

  it('shows a job\'s details: template, inventory, project, revision, credentials, labels, who launched it and the elapsed time with units', async () => {
    const machine = (await t.get('/api/v2/credential_types/?name=Machine')).body.results[0].id;
    const credential = await t.post('/api/v2/credentials/', { name: 'Web SSH', credential_type: machine, organization: org, inputs: { username: 'deploy' } });
    assert.equal(credential.status, 201, credential.text);
    const labels = [];
    for (const name of ['prod', 'web']) {
      const label = await t.post('/api/v2/labels/', { name, organization: org });
      assert.equal(label.status, 201, label.text);
      labels.push(label.body.id);
    }
    const job = await finishedJob('Deploy web', { scm_revision: '0123456789abcdef0123456789abcdef01234567', execution_node: 'node-a', limit: 'web*', forks: 5 });
    await t.db.query('INSERT INTO unified_job_credentials (unified_job_id, credential_id) VALUES ($1, $2)', [job, credential.body.id]);
    for (const label of labels) await t.db.query('INSERT INTO job_labels (job_id, label_id) VALUES ($1, $2)', [job, label]);

    await admin.open(`/jobs/${job}/details`);
    await admin.page.locator('dl[aria-label="Details"] [data-field="template"]').waitFor();
    const field = (name: string) => admin.page.locator(`dl[aria-label="Details"] [data-field="${name}"]`);
    assert.equal(await field('type').innerText(), 'Playbook run');
    assert.equal(await field('template').getByRole('link', { name: 'Deploy web' }).getAttribute('href'), `/job_templates/${template.id}`);
    assert.equal(await field('inventory').getByRole('link').getAttribute('href'), `/inventories/${inventory}`);
    assert.equal(await field('project').getByRole('link').getAttribute('href'), `/projects/${template.project}`);
    assert.equal(await field('revision').innerText(), '0123456789abcdef0123456789abcdef01234567');
    assert.equal(await field('credentials').getByRole('link', { name: /Web SSH/ }).getAttribute('href'), `/credentials/${credential.body.id}`);
    assert.deepEqual((await field('labels').locator('.pf-v6-c-label').allInnerTexts()).sort(), ['prod', 'web']);
    assert.equal(await field('launched_by').getByRole('link', { name: 'admin' }).getAttribute('href'), `/users/${adminId}`);
    assert.equal(await field('elapsed').innerText(), '2 min 5 s');
    assert.equal(await field('execution_node').innerText(), 'node-a');
    assert.equal(await field('limit').innerText(), 'web*');
    const text = await admin.page.locator('dl[aria-label="Details"]').innerText();
    for (const raw of ['job_cwd', 'work_unit_id', 'unified_job_template', '"type": "user"', 'project_update', '125']) assert.ok(!text.includes(raw), `no raw ${raw} in the details`);
    assert.equal(await admin.page.locator('[data-field="elapsed"]').first().innerText(), '2 min 5 s', 'the header says the same');
    await admin.shot('run-details-job');
    assert.deepEqual(admin.errors, []);
  });

  it('names every type of run as AWX\'s console does, in the list, its Type filter and the run\'s page', async () => {
    const runs: [string, Record<string, unknown>][] = [
      ['Sync web project', { kind: 'project_update', project_id: template.project, unified_job_template_id: template.project, job_type: 'check' }],
      ['Uptime command', { kind: 'ad_hoc_command', inventory_id: inventory, module_name: 'command', module_args: 'uptime' }],
      ['Cleanup', { kind: 'system_job', job_type: 'cleanup_jobs' }],
      ['Release flow', { kind: 'workflow_job' }],
    ];
    const ids: number[] = [];
    for (const [name, fields] of runs) ids.push(await insertRun({ name, ...fields }));
    await admin.open('/unified_jobs?name__icontains=Sync web project');
    const typeCell = (name: string) => admin.page.getByRole('row', { name: new RegExp(name) }).locator('td[data-label="Type"]');
    assert.equal(await typeCell('Sync web project').innerText(), 'Source control update');
    for (const [name, label] of [['Uptime command', 'Command'], ['Cleanup', 'Management job'], ['Release flow', 'Workflow'], ['Deploy web', 'Playbook run']]) {
      await admin.open(`/unified_jobs?name__icontains=${encodeURIComponent(name)}`);
      assert.equal(await typeCell(name).first().innerText(), label, name);
    }
    await admin.open('/unified_jobs');
    await admin.page.getByLabel('Filter field').selectOption({ label: 'Type' });
    const typeChoices = await admin.page.getByLabel('Filter value').locator('option').allInnerTexts();
    assert.deepEqual(typeChoices.filter((c) => c !== 'Any').sort(), ['Command', 'Inventory sync', 'Management job', 'Playbook run', 'Source control update', 'Workflow', 'Workflow approval']);
    await admin.page.getByLabel('Filter value').selectOption({ label: 'Command' });
    await admin.page.getByRole('button', { name: 'Filter', exact: true }).click();
    await admin.page.waitForURL(/[?&]type=ad_hoc_command\b/);
    await admin.page.getByRole('row', { name: /Deploy web/ }).first().waitFor({ state: 'detached' });
    await admin.page.getByRole('row', { name: /Uptime command/ }).waitFor();
    await admin.page.getByText('Type: ad_hoc_command').waitFor();
    await admin.shot('runs-friendly-types');

    await admin.open(`/ad_hoc_commands/${ids[1]}/details`);
    assert.equal(await admin.page.locator('[data-testid="run-type"]').innerText(), 'Command');
    assert.equal(await admin.page.locator('[data-field="module"]').innerText(), 'command');
    assert.equal(await admin.page.locator('[data-field="arguments"]').innerText(), 'uptime');
    await admin.open(`/project_updates/${ids[0]}/details`);
    assert.equal(await admin.page.locator('dl[aria-label="Details"] [data-field="type"]').innerText(), 'Source control update');
    assert.equal(await admin.page.locator('dl[aria-label="Details"] [data-field="project"]').getByRole('link').getAttribute('href'), `/projects/${template.project}`);
  });

  it('relaunches and cancels from a row of the jobs list, and expands a row', async () => {
    const pending = await insertRun({ name: 'Waiting deploy', status: 'pending', inventory_id: inventory, project_id: template.project, job_template_id: template.id, playbook: 'hello.yml' });
    const done = await finishedJob('Finished deploy', { execution_node: 'node-b' });
    await admin.open('/unified_jobs?name__icontains=deploy');
    const pendingRow = admin.page.getByRole('row', { name: /Waiting deploy/ });
    await pendingRow.getByRole('button', { name: 'Cancel Waiting deploy' }).click();
    const dialog = admin.page.getByRole('dialog', { name: 'Cancel Waiting deploy?' });
    await dialog.getByRole('button', { name: 'Cancel run' }).click();
    await dialog.waitFor({ state: 'detached' });
    await eventually(async () => (await statusOf(pending)) === 'canceled', 10_000, 'the pending job canceled');
    await pendingRow.locator('[data-status="canceled"]').waitFor();
    assert.equal(await pendingRow.getByRole('button', { name: 'Cancel Waiting deploy' }).count(), 0, 'no cancel on a canceled run');

    const doneRow = admin.page.getByRole('row', { name: /Finished deploy/ });
    await doneRow.getByRole('button', { name: 'Details' }).click();
    const expanded = admin.page.locator(`dl[aria-label="Details of ${done}"]`);
    await expanded.getByText('node-b').waitFor();
    assert.match(await expanded.innerText(), /Template\s+Deploy web/);
    await admin.shot('runs-list-row-actions');

    const before = (await t.get(`/api/v2/job_templates/${template.id}/jobs/`)).body.count;
    await doneRow.getByRole('button', { name: 'Relaunch Finished deploy' }).click();
    await admin.page.waitForURL(/\/jobs\/\d+$/);
    const relaunched = Number(/\/jobs\/(\d+)$/.exec(new URL(admin.page.url()).pathname)?.[1]);
    assert.ok(relaunched > done, 'a new job');
    const job = (await t.get(`/api/v2/jobs/${relaunched}/`)).body;
    assert.equal(job.launch_type, 'relaunch');
    assert.equal((await t.get(`/api/v2/job_templates/${template.id}/jobs/`)).body.count, before + 1);
  });

  it('cancels and deletes the selected runs after a confirmation naming them and those it leaves', async () => {
    const pending = await insertRun({ name: 'Batch pending', status: 'pending', inventory_id: inventory, job_template_id: template.id, project_id: template.project, playbook: 'hello.yml' });
    const running = await insertRun({ name: 'Batch running', status: 'running', started: new Date().toISOString(), inventory_id: inventory, job_template_id: template.id, project_id: template.project, playbook: 'hello.yml', execution_node: 'elsewhere' });
    const old1 = await finishedJob('Batch old one');
    const old2 = await finishedJob('Batch old two');
    await admin.open('/unified_jobs?name__icontains=Batch&order_by=id');
    const select = (name: string) => admin.page.getByRole('row', { name: new RegExp(name) }).getByRole('checkbox').check();
    await select('Batch pending');
    await select('Batch old one');
    await admin.page.getByRole('button', { name: 'Cancel selected' }).click();
    let dialog = admin.page.getByRole('dialog', { name: 'Cancel the selected runs?' });
    await dialog.locator('[data-testid="bulk-doable"]').getByText(`${pending} - Batch pending`).waitFor();
    assert.match(await dialog.locator('[data-testid="bulk-refused"]').innerText(), new RegExp(`These cannot be canceled:\\s+${old1} - Batch old one \\(not running\\)`));
    assert.equal(await dialog.locator('[data-testid="bulk-doable"]').getByText('Batch old one').count(), 0);
    await admin.shot('runs-bulk-cancel-confirm');
    await dialog.getByRole('button', { name: 'Cancel 1 run' }).click();
    await dialog.waitFor({ state: 'detached' });
    await eventually(async () => (await statusOf(pending)) === 'canceled', 10_000, 'the selected pending job canceled');
    assert.equal(await statusOf(running), 'running', 'a run not selected is left alone');

    await admin.open('/unified_jobs?name__icontains=Batch&order_by=id');
    await select('Batch running');
    await select('Batch old one');
    await select('Batch old two');
    await admin.page.getByRole('button', { name: 'Delete selected' }).click();
    dialog = admin.page.getByRole('dialog', { name: 'Delete the selected runs?' });
    const doable = dialog.locator('[data-testid="bulk-doable"]');
    await doable.waitFor();
    assert.match(await doable.innerText(), new RegExp(`${old1} - Batch old one[\\s\\S]*${old2} - Batch old two`));
    assert.match(await dialog.locator('[data-testid="bulk-refused"]').innerText(), new RegExp(`These cannot be deleted:\\s+${running} - Batch running \\(still running\\)`));
    await admin.shot('runs-bulk-delete-confirm');
    await dialog.getByRole('button', { name: 'Delete 2 runs' }).click();
    await dialog.waitFor({ state: 'detached' });
    assert.equal((await t.get(`/api/v2/jobs/${old1}/`)).status, 404);
    assert.equal((await t.get(`/api/v2/jobs/${old2}/`)).status, 404);
    assert.equal((await t.get(`/api/v2/jobs/${running}/`)).status, 200, 'the running job stays');
    await admin.page.getByRole('row', { name: /Batch old one/ }).waitFor({ state: 'detached' });
    assert.deepEqual(admin.errors, []);
  });

  it('offers the filters operators use, and builds the advanced search into the query string as the API takes it', async () => {
    await finishedJob('Alpha nightly');
    await finishedJob('Beta nightly');
    await admin.open('/unified_jobs?name__icontains=nightly');
    await admin.page.getByRole('row', { name: /Alpha nightly/ }).waitFor();
    const offered = (await admin.page.getByLabel('Filter field').locator('option').allInnerTexts()).filter((o) => o !== 'Filter by…');
    assert.deepEqual(offered, ['Name', 'ID', 'Status', 'Type', 'Launched by (username)', 'Template', 'Started after', 'Started before', 'Finished after', 'Finished before']);

    await admin.page.getByRole('button', { name: 'Advanced search' }).click();
    const form = admin.page.getByRole('form', { name: 'Advanced search' });
    await form.getByLabel('Set type').selectOption({ label: 'not' });
    await form.getByLabel('Key', { exact: true }).selectOption('name');
    await form.getByLabel('Lookup').selectOption({ label: 'starts with' });
    await form.getByLabel('Value', { exact: true }).fill('Alpha');
    await admin.shot('runs-advanced-search');
    await form.getByRole('button', { name: 'Search' }).click();
    await admin.page.waitForURL((url) => url.searchParams.get('not__name__startswith') === 'Alpha');
    await admin.page.getByRole('row', { name: /Alpha nightly/ }).waitFor({ state: 'detached' });
    await admin.page.getByRole('row', { name: /Beta nightly/ }).waitFor();
    await admin.page.getByText('not__name__startswith: Alpha').waitFor();

    await form.getByLabel('Set type').selectOption({ label: 'and' });
    await form.getByLabel('Key', { exact: true }).selectOption('finished');
    await form.getByLabel('Lookup').selectOption({ label: 'is null' });
    await form.getByRole('button', { name: 'Search' }).click();
    await admin.page.waitForURL((url) => url.searchParams.get('finished__isnull') === 'true');
    await admin.page.getByText('No jobs match').waitFor();
    assert.deepEqual(admin.errors, []);
  });

  it('shows a failure the task ignored as Failed (ignored) on its line and in its event, the host counted ok', async () => {
    const stats = { ok: { h1: 1 }, ignored: { h1: 1 }, changed: {}, failures: {}, dark: {}, skipped: {}, processed: { h1: 1 } };
    // The run keeps its host counts from the stats as ingestion does.
    const job = await finishedJob('Ignores a failure', { host_status_counts: JSON.stringify(hostStatusCounts(stats)) });
    const events: [string, Record<string, unknown>, string, boolean][] = [
      ['playbook_on_start', {}, '', false],
      ['playbook_on_play_start', { play: 'all' }, 'PLAY [all] *****', false],
      ['playbook_on_task_start', { task: 'may fail' }, 'TASK [may fail] *****', false],
      ['runner_on_failed', { host: 'h1', task: 'may fail', ignore_errors: true, res: { msg: 'boom', failed: true } }, 'fatal: [h1]: FAILED! => {"msg": "boom"}\n...ignoring', false],
      ['playbook_on_stats', stats, 'PLAY RECAP *****\nh1 : ok=1 changed=0 unreachable=0 failed=0 skipped=0 rescued=0 ignored=1', false],
    ];
    let line = 0;
    for (const [counter, [event, data, stdout, failed]] of events.entries()) {
      const lines = stdout ? stdout.split('\n').length : 0;
      await t.db.query(
        `INSERT INTO unified_job_events (unified_job_id, counter, uuid, parent_uuid, event, event_data, stdout, start_line, end_line, verbosity, host_name, playbook, play, task, role, changed, failed, created)
         VALUES ($1, $2, $3, '', $4, $5, $6, $7, $8, 0, $9, 'hello.yml', 'all', $10, '', false, $11, now())`,
        [job, counter + 1, `uuid-${counter}`, event, JSON.stringify(data), stdout, line, line + lines, (data.host as string) ?? '', (data.task as string) ?? '', failed],
      );
      line += lines;
    }
    await admin.open(`/jobs/${job}`);
    const failedLine = admin.page.locator('.drover-output-line', { hasText: '...ignoring' });
    await failedLine.locator('[data-status="failed_ignored"]').filter({ hasText: 'Failed (ignored)' }).waitFor();
    await admin.page.locator('[data-host-status="ok"]', { hasText: 'ok 1' }).waitFor();
    assert.equal(await admin.page.locator('[data-host-status="failed"]').count(), 0, 'no host counted failed');
    await admin.page.locator('.drover-output-line', { hasText: 'fatal: [h1]' }).click();
    const modal = admin.page.getByRole('dialog', { name: 'Event on h1' });
    await modal.waitFor();
    assert.equal(await modal.locator('[data-event-field="status"]').innerText(), 'Failed (ignored)');
    assert.equal(await modal.locator('[data-event-field="event"]').innerText(), 'Host Failed');
    await admin.shot('run-output-ignored-failure');
    assert.deepEqual(admin.errors, []);
  });
});
