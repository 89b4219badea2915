import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, grant, newHost, newInventory, newJobTemplate, newOrg, newProject, newUser, type TestApp } from './helpers/app.ts';
import { waitForRun } from './helpers/jobs.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const PLAY = `- hosts: all
  gather_facts: false
  tasks:
    - name: show
      debug: msg="color={{ color | default('none') }} word={{ secret_word | default('none') }}"
    - name: check the secret
      assert:
        that: secret_word | default('opensesame') == 'opensesame'
`;

describe('launching job templates', () => {
  let t: TestApp;
  let template: any;

  before(async () => {
    t = await createTestApp();
    const org = (await newOrg(t)).id;
    const project = await newProject(t, org, { name: 'Plays', files: { 'site.yml': PLAY } });
    const inventory = await newInventory(t, org, { name: 'Local' });
    await newHost(t, inventory, { name: 'h1' });
    template = await newJobTemplate(t, { name: 'Site', project, inventory, playbook: 'site.yml', extra_vars: 'color: blue' });
  });
  after(async () => {
    await t.close();
  });

  it('POST launch creates a job that runs the playbook; prompts without their ask flag are ignored and reported', async () => {
    const res = await t.post(`/api/v2/job_templates/${template.id}/launch/`, { extra_vars: { color: 'red' }, limit: 'nothing' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.job, res.body.id);
    assert.equal(res.body.type, 'job');
    assert.deepEqual(res.body.ignored_fields, { extra_vars: { color: 'red' }, limit: 'nothing' });
    const job = await waitForRun(t, res.body.url, 120_000);
    assert.equal(job.status, 'successful', job.job_explanation);
    assert.equal(job.job_template, template.id);
    assert.match((await t.get(`${job.url}stdout/?format=txt`)).text, /color=blue/);
    const after = (await t.get(`/api/v2/job_templates/${template.id}/`)).body;
    assert.equal(after.status, 'successful');
    assert.ok((await t.get(`/api/v2/job_templates/${template.id}/jobs/`)).body.count >= 1);
  });

  it('a survey password reaches the playbook, is stored encrypted and never shown', async () => {
    const spec = { name: 's', description: '', spec: [{ variable: 'secret_word', question_name: 'Word', type: 'password', required: true }] };
    assert.equal((await t.post(`/api/v2/job_templates/${template.id}/survey_spec/`, spec)).status, 200);
    assert.equal((await t.patch(`/api/v2/job_templates/${template.id}/`, { survey_enabled: true })).status, 200);
    const missing = await t.post(`/api/v2/job_templates/${template.id}/launch/`, {});
    assert.equal(missing.status, 400);
    assert.ok(missing.body.variables_needed_to_start);
    const res = await t.post(`/api/v2/job_templates/${template.id}/launch/`, { extra_vars: { secret_word: 'opensesame' } });
    assert.equal(res.status, 201, res.text);
    const job = await waitForRun(t, res.body.url, 120_000);
    assert.equal(job.status, 'successful', job.job_explanation);
    assert.match(job.extra_vars, /"secret_word": "\$encrypted\$"/);
    const [row] = await t.db.query<AnyRow>('SELECT extra_vars FROM unified_jobs WHERE id = $1', [job.id]);
    assert.ok(!row.extra_vars.includes('opensesame'), 'no plaintext at rest');
    const stdout = (await t.get(`${job.url}stdout/?format=txt`)).text;
    assert.ok(!stdout.includes('opensesame'));
    assert.match(stdout, /word=\$encrypted\$/);
    await t.patch(`/api/v2/job_templates/${template.id}/`, { survey_enabled: false });
  });

  it('prompts are read by the template\'s own field declarations: coerced as the template would be, refused with its messages, nothing created', async () => {
    const asks = { ask_verbosity_on_launch: true, ask_limit_on_launch: true, ask_forks_on_launch: true, ask_job_type_on_launch: true, ask_diff_mode_on_launch: true };
    const prompted = (await t.post('/api/v2/job_templates/', { name: 'Prompted', project: template.project, inventory: template.inventory, playbook: 'site.yml', ...asks })).body;
    const jobsBefore = (await t.get(`/api/v2/job_templates/${prompted.id}/jobs/`)).body.count;
    const bad = await t.post(`/api/v2/job_templates/${prompted.id}/launch/`, { verbosity: 9, limit: '@/etc/hosts', forks: 100_000, job_type: 'destroy', diff_mode: 'maybe' });
    assert.equal(bad.status, 400, bad.text);
    const onTemplate = await t.patch(`/api/v2/job_templates/${prompted.id}/`, { verbosity: 9, limit: '@/etc/hosts', forks: 100_000, job_type: 'destroy', diff_mode: 'maybe' });
    assert.equal(onTemplate.status, 400);
    const { forks, ...fieldProblems } = bad.body;
    assert.deepEqual(fieldProblems, onTemplate.body, 'a prompt is refused exactly as the same value on the template');
    assert.deepEqual(forks, (await t.patch(`/api/v2/job_templates/${prompted.id}/`, { forks: 100_000 })).body.forks);
    assert.equal((await t.get(`/api/v2/job_templates/${prompted.id}/jobs/`)).body.count, jobsBefore);
    const res = await t.post(`/api/v2/job_templates/${prompted.id}/launch/`, { verbosity: '2', forks: '3', diff_mode: 'true', job_type: 'check', limit: 'h1' });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual([res.body.verbosity, res.body.forks, res.body.diff_mode, res.body.job_type, res.body.limit], [2, 3, true, 'check', 'h1']);
    assert.equal((await waitForRun(t, res.body.url, 120_000)).status, 'successful');
  });

  it('launching needs execute_role: 403 without it, 201 with it', async () => {
    const user = await newUser(t);
    assert.equal((await t.post(`/api/v2/job_templates/${template.id}/launch/`, {}, { as: user })).status, 403);
    await grant(t, user, template, 'execute_role');
    const res = await t.post(`/api/v2/job_templates/${template.id}/launch/`, {}, { as: user });
    assert.equal(res.status, 201, res.text);
    assert.equal((await waitForRun(t, res.body.url, 120_000)).status, 'successful');
  });
});
