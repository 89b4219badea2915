// Schedules of workflow job templates: the schedules list, saved prompts checked against ask_* and the survey, scheduled launches, access.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, grant, newOrg, newUser, type TestApp, type User } from './helpers/app.ts';
import { eventually } from './helpers/jobs.ts';
import { rruleIn } from './helpers/schedules.ts';
import { makeWorkflow } from './helpers/workflows.ts';

const SURVEY = {
  name: 'Ask', description: '',
  spec: [{ question_name: 'Color', variable: 'color', type: 'text', required: true, default: '', min: 0, max: 20 }],
};

describe('schedules of workflow job templates', () => {
  let t: TestApp;
  let org: number;
  let plain: User;
  let otherAdmin: User;
  let executor: User;

  before(async () => {
    t = await createTestApp();
    org = (await newOrg(t, { name: 'Scheduled flows' })).id;
    const other = await newOrg(t, { name: 'Elsewhere' });
    plain = await newUser(t, { member: org });
    otherAdmin = await newUser(t, { admin: other.id });
    executor = await newUser(t, { member: org });
  });
  after(() => t.close());

  it('creates schedules through the workflow\'s schedules list and through /schedules/, and lists them there', async () => {
    const wf = await makeWorkflow(t, org, 'listed', { gate: {} }, []);
    const shown = await t.get(`/api/v2/workflow_job_templates/${wf.id}/`);
    assert.equal(shown.body.related.schedules, `/api/v2/workflow_job_templates/${wf.id}/schedules/`);
    const viaList = await t.post(`/api/v2/workflow_job_templates/${wf.id}/schedules/`, { name: 'Nightly', rrule: rruleIn(3600) });
    assert.equal(viaList.status, 201, viaList.text);
    assert.equal(viaList.body.unified_job_template, wf.id);
    const viaTop = await t.post('/api/v2/schedules/', { name: 'Hourly', unified_job_template: wf.id, rrule: rruleIn(7200) });
    assert.equal(viaTop.status, 201, viaTop.text);
    const listed = await t.get(`/api/v2/workflow_job_templates/${wf.id}/schedules/`);
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.body.results.map((s: any) => s.name).sort(), ['Hourly', 'Nightly']);
    assert.equal(viaTop.body.summary_fields.unified_job_template.unified_job_type, 'workflow_job');
    // The template shows the earliest next run of its schedules.
    const template = (await t.get(`/api/v2/workflow_job_templates/${wf.id}/`)).body;
    assert.equal(new Date(template.next_job_run).getTime(), new Date(viaList.body.next_run).getTime());
  });

  it('refuses prompts the workflow does not ask for, and extra_data outside its survey', async () => {
    const wf = await makeWorkflow(t, org, 'strict', { gate: {} }, []);
    const base = `/api/v2/workflow_job_templates/${wf.id}/schedules/`;
    for (const [field, value] of [['limit', 'web'], ['scm_branch', 'dev'], ['job_tags', 'a'], ['skip_tags', 'b'], ['job_type', 'check']] as const) {
      const res = await t.post(base, { name: `With ${field}`, rrule: rruleIn(3600), [field]: value });
      assert.equal(res.status, 400, `${field}: ${res.text}`);
      assert.ok(res.body[field], res.text);
    }
    const refusedLink = await t.post('/api/v2/schedules/', { name: 'Linked', unified_job_template: wf.id, rrule: rruleIn(3600) });
    const label = await t.post('/api/v2/labels/', { name: 'unasked', organization: org });
    assert.equal((await t.post(`/api/v2/schedules/${refusedLink.body.id}/labels/`, { id: label.body.id })).status, 400);
    assert.equal((await t.delete(`/api/v2/schedules/${refusedLink.body.id}/`)).status, 204);
    const vars = await t.post(base, { name: 'Vars', rrule: rruleIn(3600), extra_data: { anything: 1 } });
    assert.equal(vars.status, 400, vars.text);
    assert.ok(vars.body.extra_data, vars.text);
    assert.equal((await t.get(base)).body.count, 0);

    assert.equal((await t.patch(`/api/v2/workflow_job_templates/${wf.id}/`, { ask_limit_on_launch: true, survey_enabled: true })).status, 200);
    assert.equal((await t.post(`/api/v2/workflow_job_templates/${wf.id}/survey_spec/`, SURVEY)).status, 200);
    const missing = await t.post(base, { name: 'No answer', rrule: rruleIn(3600), limit: 'web' });
    assert.equal(missing.status, 400, missing.text);
    assert.ok(missing.body.variables_needed_to_start, missing.text);
    const ok = await t.post(base, { name: 'Answered', rrule: rruleIn(3600), limit: 'web', extra_data: { color: 'blue' } });
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.limit, 'web');
  });

  it('launches one workflow job, launch_type scheduled, with the saved prompts, and next_job_run follows', async () => {
    const wf = await makeWorkflow(t, org, 'soon', { gate: {} }, [], { ask_limit_on_launch: true, ask_labels_on_launch: true, allow_simultaneous: true, survey_enabled: true });
    assert.equal((await t.post(`/api/v2/workflow_job_templates/${wf.id}/survey_spec/`, SURVEY)).status, 200);
    const label = await t.post('/api/v2/labels/', { name: 'nightly', organization: org });
    assert.equal(label.status, 201, label.text);
    const s = await t.post(`/api/v2/workflow_job_templates/${wf.id}/schedules/`, { name: 'Soon', rrule: rruleIn(4), limit: 'db', extra_data: { color: 'red' } });
    assert.equal(s.status, 201, s.text);
    assert.equal((await t.post(`/api/v2/schedules/${s.body.id}/labels/`, { id: label.body.id })).status, 204);
    const jobs = await eventually(async () => {
      const found = (await t.get(`/api/v2/workflow_job_templates/${wf.id}/workflow_jobs/`)).body.results;
      return found.length ? found : null;
    }, 20_000, 'the scheduled workflow job');
    const job = (await t.get(`/api/v2/workflow_jobs/${jobs[0].id}/`)).body;
    assert.equal(job.launch_type, 'scheduled');
    assert.equal(job.limit, 'db');
    assert.equal(JSON.parse(job.extra_vars).color, 'red');
    assert.deepEqual((await t.get(`/api/v2/workflow_jobs/${job.id}/labels/`)).body.results.map((l: any) => l.name), ['nightly']);
    const ofSchedule = (await t.get(`/api/v2/schedules/${s.body.id}/jobs/`)).body.results;
    assert.deepEqual(ofSchedule.map((j: any) => j.id), [job.id]);
    // The next slot is an hour on; the template follows its schedule.
    const schedule = (await t.get(`/api/v2/schedules/${s.body.id}/`)).body;
    assert.ok(new Date(schedule.next_run).getTime() > Date.now() + 30 * 60_000, schedule.next_run);
    const template = (await t.get(`/api/v2/workflow_job_templates/${wf.id}/`)).body;
    assert.equal(new Date(template.next_job_run).getTime(), new Date(schedule.next_run).getTime());
    // A scheduler pass now launches nothing more.
    await t.settle();
    assert.equal((await t.get(`/api/v2/workflow_job_templates/${wf.id}/workflow_jobs/`)).body.count, 1);
  });

  it('lets only those who may run the workflow schedule it; others neither create nor see its schedules', async () => {
    const wf = await makeWorkflow(t, org, 'guarded', { gate: {} }, []);
    await grant(t, executor, `/api/v2/workflow_job_templates/${wf.id}/`, 'execute_role');
    const mine = await t.post('/api/v2/schedules/', { name: 'Admin made', unified_job_template: wf.id, rrule: rruleIn(3600) });
    assert.equal(mine.status, 201, mine.text);
    for (const who of [plain, otherAdmin]) {
      assert.equal((await t.post(`/api/v2/workflow_job_templates/${wf.id}/schedules/`, { name: 'Intruder', rrule: rruleIn(3600) }, { as: who })).status, 403);
      assert.equal((await t.post('/api/v2/schedules/', { name: 'Intruder', unified_job_template: wf.id, rrule: rruleIn(3600) }, { as: who })).status, 403);
      assert.equal((await t.get(`/api/v2/schedules/${mine.body.id}/`, { as: who })).status, 403);
      assert.equal((await t.patch(`/api/v2/schedules/${mine.body.id}/`, { enabled: false }, { as: who })).status, 403);
      assert.equal((await t.delete(`/api/v2/schedules/${mine.body.id}/`, { as: who })).status, 403);
    }
    const byExecutor = await t.post(`/api/v2/workflow_job_templates/${wf.id}/schedules/`, { name: 'Executor made', rrule: rruleIn(3600) }, { as: executor });
    assert.equal(byExecutor.status, 201, byExecutor.text);
    const names = (await t.get(`/api/v2/workflow_job_templates/${wf.id}/schedules/`)).body.results.map((s: any) => s.name).sort();
    assert.deepEqual(names, ['Admin made', 'Executor made']);
  });
});
