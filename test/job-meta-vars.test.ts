import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { eventually, waitForRun } from './helpers/jobs.ts';
import { grant, newInventory, newJobTemplate, newOrg, newProject, newSchedule, newUser, rruleIn, type User } from './helpers/factories.ts';
import { finished, makeWorkflow, nodeRun } from './helpers/workflows.ts';

/** Prints every variable named awx_* or tower_* the play sees, as one dict (event_data.res.msg). */
const META_PLAYBOOK = `- hosts: all
  gather_facts: false
  tasks:
    - name: print meta variables
      vars:
        names: "{{ query('varnames', '^(awx|tower)_') }}"
      debug:
        msg: "{{ dict(names | zip(query('vars', *names))) }}"
`;

/** What the job's play printed: its awx_* and tower_* variables. */
async function metaVarsOf(t: TestApp, jobId: number): Promise<Record<string, unknown>> {
  const job = await waitForRun(t, `/api/v2/jobs/${jobId}/`);
  if (job.status !== 'successful') assert.fail(`${job.job_explanation}\n${(await t.get(`/api/v2/jobs/${jobId}/stdout/?format=txt`)).text}`);
  const events = await t.get(`/api/v2/jobs/${jobId}/job_events/?event=runner_on_ok&task=print+meta+variables`);
  assert.equal(events.status, 200, events.text);
  assert.equal(events.body.count, 1, events.text);
  return events.body.results[0].event_data.res.msg;
}

/** Each name under awx_ and tower_. */
const both = (vars: Record<string, unknown>) =>
  Object.fromEntries(['awx', 'tower'].flatMap((prefix) => Object.entries(vars).map(([name, value]) => [`${prefix}_${name}`, value])));

describe('variables every job gets (AWX awx_meta_vars)', () => {
  let t: TestApp;
  let org: number;
  let project: any;
  let inventory: any;
  let template: any;
  let launcher: User;

  before(async () => {
    t = await createTestApp();
    org = (await newOrg(t, { name: 'Meta Org' })).id;
    project = await newProject(t, org, { name: 'Meta Project', files: { 'meta.yml': META_PLAYBOOK } });
    inventory = await newInventory(t, org, { name: 'Meta Inventory', hosts: ['localhost'] });
    template = await newJobTemplate(t, { name: 'Meta Template', project: project.id, inventory: inventory.id, playbook: 'meta.yml', ask_variables_on_launch: true, allow_simultaneous: true });
    launcher = await newUser(t, { username: 'meta-launcher', first_name: 'Meta', last_name: 'Launcher', email: 'meta@example.com' });
    await grant(t, launcher, `/api/v2/job_templates/${template.id}/`, 'execute_role');
  });
  after(() => t.close());

  it('a manual launch: job, template, project, inventory, node and user; a launch cannot set them; nothing is stored in extra_vars', async () => {
    const spoof = { awx_job_id: 999999, tower_user_name: 'someone-else', awx_job_template_name: 'forged', own: 'kept' };
    const launch = await t.post(`/api/v2/job_templates/${template.id}/launch/`, { extra_vars: spoof }, { as: launcher });
    assert.equal(launch.status, 201, launch.text);
    const id = launch.body.job;
    const seen = await metaVarsOf(t, id);
    const job = (await t.get(`/api/v2/jobs/${id}/`)).body;
    assert.match(project.scm_revision, /^[0-9a-f]{40}$/);
    assert.deepEqual(seen, both({
      job_id: id, job_launch_type: 'manual',
      user_id: launcher.id, user_name: 'meta-launcher', user_email: 'meta@example.com', user_first_name: 'Meta', user_last_name: 'Launcher',
      inventory_id: inventory.id, inventory_name: 'Meta Inventory',
      project_revision: project.scm_revision, project_scm_branch: project.scm_branch,
      job_template_id: template.id, job_template_name: 'Meta Template',
      execution_node: job.execution_node,
    }));
    assert.ok(job.execution_node);
    // AWX adds them when the job runs: its extra_vars keep what the launch gave, spoofed names included.
    assert.deepEqual(JSON.parse(job.extra_vars), spoof);
    assert.equal(job.related.schedule, undefined);
    assert.equal(job.summary_fields.schedule, undefined);
  });

  it('a scheduled job: the schedule instead of a user; the job links to its schedule and lists filter on it', async () => {
    const schedule = await newSchedule(t, template.id, { name: 'Meta Schedule', description: 'every hour', rrule: rruleIn(1) });
    const listed = await eventually(async () => (await t.get(`/api/v2/schedules/${schedule.id}/jobs/`)).body.results[0], 30_000, 'the scheduled job');
    const seen = await metaVarsOf(t, listed.id);
    const job = (await t.get(`/api/v2/jobs/${listed.id}/`)).body;
    assert.deepEqual(seen, both({
      job_id: job.id, job_launch_type: 'scheduled', schedule_id: schedule.id, schedule_name: 'Meta Schedule',
      inventory_id: inventory.id, inventory_name: 'Meta Inventory',
      project_revision: project.scm_revision, project_scm_branch: project.scm_branch,
      job_template_id: template.id, job_template_name: 'Meta Template', execution_node: job.execution_node,
    }));

    // AWX's UnifiedJobSerializer: related.schedule and summary_fields.schedule (id, name, description, next_run), no top-level field.
    const next = (await t.get(`/api/v2/schedules/${schedule.id}/`)).body.next_run;
    assert.equal(job.related.schedule, `/api/v2/schedules/${schedule.id}/`);
    assert.deepEqual(job.summary_fields.schedule, { id: schedule.id, name: 'Meta Schedule', description: 'every hour', next_run: next });
    assert.equal('schedule' in job, false);

    for (const list of ['jobs', 'unified_jobs']) {
      const filtered = await t.get(`/api/v2/${list}/?schedule=${schedule.id}`);
      assert.equal(filtered.status, 200, filtered.text);
      assert.deepEqual(filtered.body.results.map((r: any) => r.id), [job.id], list);
      assert.equal(filtered.body.results[0].summary_fields.schedule.id, schedule.id);
      const unscheduled = await t.get(`/api/v2/${list}/?schedule__isnull=true&page_size=200`);
      assert.ok(!unscheduled.body.results.some((r: any) => r.id === job.id), list);
    }
    assert.deepEqual((await t.get(`/api/v2/jobs/?schedule__name=Meta+Schedule`)).body.results.map((r: any) => r.id), [job.id]);

    // A schedule that will not run again keeps no next_run in the summary (AWX leaves out null values).
    await t.patch(`/api/v2/schedules/${schedule.id}/`, { enabled: false });
    await t.db.query('UPDATE schedules SET next_run = NULL WHERE id = $1', [schedule.id]);
    assert.deepEqual((await t.get(`/api/v2/jobs/${job.id}/`)).body.summary_fields.schedule, { id: schedule.id, name: 'Meta Schedule', description: 'every hour' });

    // Who may not see the job learns nothing through the filter; whoever sees the job sees its schedule's summary, as in AWX.
    const plain = await newUser(t, { username: 'meta-plain', member: org });
    const otherOrg = (await newOrg(t, { name: 'Meta Other Org' })).id;
    const otherAdmin = await newUser(t, { username: 'meta-other-admin', admin: otherOrg });
    for (const who of [plain, otherAdmin]) {
      for (const list of ['jobs', 'unified_jobs']) assert.equal((await t.get(`/api/v2/${list}/?schedule=${schedule.id}`, { as: who })).body.count, 0, who.username);
      assert.equal((await t.get(`/api/v2/jobs/${job.id}/`, { as: who })).status, 403);
      assert.equal((await t.get(`/api/v2/schedules/${schedule.id}/`, { as: who })).status, 403);
    }
    // Shown the run alone (as a service catalog requester is), the user still cannot open the schedule.
    await t.db.query('INSERT INTO run_viewers (unified_job_id, user_id) VALUES ($1, $2)', [job.id, plain.id]);
    const shown = await t.get(`/api/v2/jobs/${job.id}/`, { as: plain });
    assert.equal(shown.status, 200, shown.text);
    assert.equal(shown.body.summary_fields.schedule.name, 'Meta Schedule');
    assert.equal((await t.get(`/api/v2/schedules/${schedule.id}/`, { as: plain })).status, 403);
    assert.deepEqual((await t.get(`/api/v2/jobs/?schedule=${schedule.id}`, { as: plain })).body.results.map((r: any) => r.id), [job.id]);
    // A filter through the schedule reaches only schedules the caller may see.
    assert.equal((await t.get('/api/v2/jobs/?schedule__name=Meta+Schedule', { as: plain })).body.count, 0);

    // Deleting the schedule keeps its jobs, unlinked (AWX: on_delete SET_NULL).
    assert.equal((await t.delete(`/api/v2/schedules/${schedule.id}/`)).status, 204);
    const kept = (await t.get(`/api/v2/jobs/${job.id}/`)).body;
    assert.equal(kept.related.schedule, undefined);
    assert.equal(kept.summary_fields.schedule, undefined);
  });

  it("a workflow node's job: the workflow job, and the schedule that launched the workflow job", async () => {
    const workflow = await makeWorkflow(t, org, 'Meta Workflow', { run: { template: template.id } }, []);
    const schedule = await newSchedule(t, workflow.id, { name: 'Meta Workflow Schedule', rrule: rruleIn(1) });
    const workflowJob = await eventually(async () => (await t.get(`/api/v2/schedules/${schedule.id}/jobs/`)).body.results[0], 30_000, 'the scheduled workflow job');
    assert.equal(workflowJob.type, 'workflow_job');
    assert.equal(workflowJob.related.schedule, `/api/v2/schedules/${schedule.id}/`);
    const jobId = await nodeRun(t, workflowJob.id, 'run');
    const seen = await metaVarsOf(t, jobId);
    const job = (await t.get(`/api/v2/jobs/${jobId}/`)).body;
    // No user launched the workflow job, so its node's job has none; its own schedule is none either.
    assert.deepEqual(seen, both({
      job_id: jobId, job_launch_type: 'workflow',
      workflow_job_id: workflowJob.id, workflow_job_name: 'Meta Workflow', workflow_job_launch_type: 'scheduled',
      parent_job_schedule_id: schedule.id, parent_job_schedule_name: 'Meta Workflow Schedule',
      inventory_id: inventory.id, inventory_name: 'Meta Inventory',
      project_revision: project.scm_revision, project_scm_branch: project.scm_branch,
      job_template_id: template.id, job_template_name: 'Meta Template', execution_node: job.execution_node,
    }));
    assert.equal(job.summary_fields.schedule, undefined);
    assert.equal((await finished(t, workflowJob.id)).status, 'successful');
  });
});
