import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { eventually } from './helpers/jobs.ts';
import { rruleIn, scheduledTemplate } from './helpers/schedules.ts';
import { launchDueSchedules, startScheduler, type RunningScheduler } from '../src/task-manager/scheduler.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

/** The jobs a schedule launched, through the API. */
async function jobsOf(t: TestApp, scheduleId: number): Promise<any[]> {
  const res = await t.get(`/api/v2/schedules/${scheduleId}/jobs/`);
  assert.equal(res.status, 200, res.text);
  return res.body.results;
}

describe('the scheduler', () => {
  let t: TestApp;
  const running: RunningScheduler[] = [];

  before(async () => {
    // No dispatcher: launched jobs stay pending, so each launch is counted and stays active.
    t = await createTestApp({}, { dispatcher: false });
  });
  after(async () => {
    for (const s of running) await s.stop();
    await t.close();
  });

  it('launches a schedule due in a few seconds exactly once, though two schedulers share the database', async () => {
    const { template } = await scheduledTemplate(t);
    const s = await t.post(`/api/v2/job_templates/${template.id}/schedules/`, { name: 'Soon', rrule: rruleIn(3), extra_data: {} });
    assert.equal(s.status, 201, s.text);
    running.push(await startScheduler(t.services), await startScheduler(t.services));
    const jobs = await eventually(async () => {
      const found = await jobsOf(t, s.body.id);
      return found.length ? found : null;
    }, 20_000, 'the scheduled job');
    const job = jobs![0];
    assert.equal(job.launch_type, 'scheduled');
    assert.equal(job.unified_job_template, template.id);
    assert.equal(job.summary_fields.created_by, undefined);
    // Both schedulers passed the due time; another pass of each launches nothing more.
    await launchDueSchedules(t.services);
    await launchDueSchedules(t.services);
    assert.equal((await jobsOf(t, s.body.id)).length, 1);
    const after = (await t.get(`/api/v2/schedules/${s.body.id}/`)).body;
    assert.ok(new Date(after.next_run).getTime() > Date.now() + 30 * 60_000, after.next_run);
    assert.equal((await t.get(`/api/v2/job_templates/${template.id}/jobs/`)).body.count, 1);
    // The other tests drive passes themselves.
    for (const scheduler of running.splice(0)) await scheduler.stop();
  });

  it('two scheduler passes racing over many due schedules launch each once', async () => {
    const { template } = await scheduledTemplate(t);
    await t.patch('/api/v2/settings/jobs/', { SCHEDULE_MAX_JOBS: 100 });
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) {
      const s = await t.post('/api/v2/schedules/', { name: `Race ${i}`, unified_job_template: template.id, rrule: rruleIn(3600) });
      ids.push(s.body.id);
    }
    await t.db.query<AnyRow>("UPDATE schedules SET next_run = now() - interval '1 second' WHERE id = ANY($1::int[])", [ids]);
    await Promise.all([launchDueSchedules(t.services), launchDueSchedules(t.services), launchDueSchedules(t.services)]);
    const counts = await t.db.query<{ schedule_id: number; n: number }>(
      'SELECT schedule_id, count(*)::int AS n FROM unified_jobs WHERE schedule_id = ANY($1::int[]) GROUP BY schedule_id', [ids]);
    assert.equal(counts.length, 20);
    assert.ok(counts.every((c) => c.n === 1), JSON.stringify(counts));
    await t.patch('/api/v2/settings/jobs/', { SCHEDULE_MAX_JOBS: 10 });
  });

  it('after downtime, a schedule that missed many slots launches once and moves to its next slot', async () => {
    const { template } = await scheduledTemplate(t);
    // Every minute since 30 minutes ago: 30 slots missed while no scheduler ran.
    const s = await t.post('/api/v2/schedules/', { name: 'Missed', unified_job_template: template.id, rrule: rruleIn(-1800, 'FREQ=MINUTELY;INTERVAL=1') });
    assert.equal(s.status, 201, s.text);
    await t.db.query<AnyRow>("UPDATE schedules SET next_run = now() - interval '29 minutes' WHERE id = $1", [s.body.id]);
    await launchDueSchedules(t.services);
    await launchDueSchedules(t.services);
    assert.equal((await jobsOf(t, s.body.id)).length, 1);
    const next = new Date((await t.get(`/api/v2/schedules/${s.body.id}/`)).body.next_run).getTime();
    assert.ok(next > Date.now() && next <= Date.now() + 61_000, String(next));
  });

  it('does not launch a disabled schedule', async () => {
    const { template } = await scheduledTemplate(t);
    const s = await t.post('/api/v2/schedules/', { name: 'Off', unified_job_template: template.id, rrule: rruleIn(3600), enabled: false });
    assert.equal(s.body.next_run, null);
    // Even with a due next_run left behind, a disabled schedule is not claimed.
    await t.db.query<AnyRow>("UPDATE schedules SET next_run = now() - interval '1 second' WHERE id = $1", [s.body.id]);
    await launchDueSchedules(t.services);
    assert.equal((await jobsOf(t, s.body.id)).length, 0);
  });

  it('a schedule whose rule has no more occurrences gets next_run null after its last launch', async () => {
    const { template } = await scheduledTemplate(t);
    const s = await t.post('/api/v2/schedules/', { name: 'Once', unified_job_template: template.id, rrule: rruleIn(2, 'FREQ=DAILY;INTERVAL=1;COUNT=1') });
    assert.ok(s.body.next_run);
    await eventually(async () => {
      await launchDueSchedules(t.services);
      return (await jobsOf(t, s.body.id)).length === 1 ? true : null;
    }, 15_000, 'the only launch');
    assert.equal((await t.get(`/api/v2/schedules/${s.body.id}/`)).body.next_run, null);
  });

  it('skips a launch when the template has SCHEDULE_MAX_JOBS active runs, with an activity stream record', async () => {
    const { template } = await scheduledTemplate(t);
    assert.equal((await t.patch('/api/v2/settings/jobs/', { SCHEDULE_MAX_JOBS: 1 })).status, 200);
    try {
      const launched = await t.post(`/api/v2/job_templates/${template.id}/launch/`, {});
      assert.equal(launched.status, 201, launched.text);
      const s = await t.post('/api/v2/schedules/', { name: 'Capped', unified_job_template: template.id, rrule: rruleIn(3600) });
      await t.db.query<AnyRow>("UPDATE schedules SET next_run = now() - interval '1 second' WHERE id = $1", [s.body.id]);
      await launchDueSchedules(t.services);
      assert.equal((await jobsOf(t, s.body.id)).length, 0);
      assert.equal((await t.get(`/api/v2/job_templates/${template.id}/jobs/`)).body.count, 1);
      const activity = await t.get(`/api/v2/activity_stream/?object1=schedule&operation=update`);
      const record = activity.body.results.find((r: any) => r.changes?.skipped_launch && JSON.stringify(r).includes(`"id":${s.body.id}`)) ??
        (await t.db.query<AnyRow>("SELECT * FROM activity_stream WHERE object1 = 'schedule' AND object1_id = $1 AND changes ? 'skipped_launch'", [s.body.id]))[0];
      assert.ok(record, activity.text);
      assert.match(JSON.stringify(record.changes), /SCHEDULE_MAX_JOBS is 1/);
    } finally {
      await t.patch('/api/v2/settings/jobs/', { SCHEDULE_MAX_JOBS: 10 });
    }
  });

  it('launches with the saved prompts, labels and instance groups the template asks for', async () => {
    const { template, org } = await scheduledTemplate(t, { ask_limit_on_launch: true, ask_labels_on_launch: true, ask_instance_groups_on_launch: true });
    const { template: plainTemplate } = await scheduledTemplate(t);
    const group = (await t.post('/api/v2/instance_groups/', { name: `Sched group ${org}` })).body.id;
    const label = (await t.post('/api/v2/labels/', { name: `nightly-${org}`, organization: org })).body.id;
    const s = await t.post('/api/v2/schedules/', { name: 'Prompted', unified_job_template: template.id, rrule: rruleIn(3600), limit: 'web' });
    assert.equal(s.status, 201, s.text);
    assert.equal((await t.post(`/api/v2/schedules/${s.body.id}/instance_groups/`, { id: group })).status, 204);
    assert.equal((await t.post(`/api/v2/schedules/${s.body.id}/labels/`, { id: label })).status, 204);
    const other = await t.post('/api/v2/schedules/', { name: 'Plain', unified_job_template: plainTemplate.id, rrule: rruleIn(3600) });
    const refused = await t.post(`/api/v2/schedules/${other.body.id}/instance_groups/`, { id: group });
    assert.equal(refused.status, 400, refused.text);
    assert.equal((await t.get(`/api/v2/schedules/${other.body.id}/instance_groups/`)).body.count, 0);
    await t.db.query<AnyRow>("UPDATE schedules SET next_run = now() - interval '1 second' WHERE id = $1", [s.body.id]);
    await launchDueSchedules(t.services);
    const [job] = await jobsOf(t, s.body.id);
    const detail = (await t.get(`/api/v2/jobs/${job.id}/`)).body;
    assert.equal(detail.limit, 'web');
    assert.deepEqual(detail.summary_fields.labels.results.map((l: any) => l.id), [label]);
    const groups = await t.db.query<AnyRow>('SELECT instance_group_id FROM unified_job_instance_groups WHERE unified_job_id = $1', [job.id]);
    assert.deepEqual(groups.map((g) => g.instance_group_id), [group]);
  });

  it('attaches labels by name (created in the organization given) and one credential per type, as AWX\'s launch configurations', async () => {
    const { template, org } = await scheduledTemplate(t, { ask_labels_on_launch: true, ask_credential_on_launch: true });
    const s = (await t.post('/api/v2/schedules/', { name: 'Labelled by name', unified_job_template: template.id, rrule: rruleIn(3600) })).body;
    const labels = `/api/v2/schedules/${s.id}/labels/`;
    const created = await t.post(labels, { name: `typed-${org}`, organization: org });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.organization, org);
    assert.equal((await t.post(labels, { name: `typed-${org}`, organization: org })).status, 204, 'the same name attaches the same label');
    assert.equal((await t.post(labels, { name: 'no organization' })).status, 400);
    assert.deepEqual((await t.get(labels)).body.results.map((l: any) => l.name), [`typed-${org}`]);
    assert.equal((await t.get(`/api/v2/labels/?name=no+organization`)).body.count, 0);

    const machine = (await t.get('/api/v2/credential_types/?namespace=ssh')).body.results[0].id;
    const cred = async (name: string) => (await t.post('/api/v2/credentials/', { name, organization: org, credential_type: machine, inputs: { username: name } })).body.id as number;
    const [first, second] = [await cred(`first-${org}`), await cred(`second-${org}`)];
    const credentials = `/api/v2/schedules/${s.id}/credentials/`;
    assert.equal((await t.post(credentials, { id: first })).status, 204);
    const refused = await t.post(credentials, { id: second });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body, { msg: ['This launch configuration already provides a Machine credential.'] });
    assert.deepEqual((await t.get(credentials)).body.results.map((c: any) => c.id), [first]);
  });

  it('keeps a survey password answer encrypted and never shows it, and the job gets it', async () => {
    const { template } = await scheduledTemplate(t);
    const spec = { name: '', description: '', spec: [{ question_name: 'Word', variable: 'word', type: 'password', required: true, default: '' }] };
    assert.equal((await t.post(`/api/v2/job_templates/${template.id}/survey_spec/`, spec)).status, 200);
    await t.patch(`/api/v2/job_templates/${template.id}/`, { survey_enabled: true });
    const s = await t.post('/api/v2/schedules/', { name: 'Secret', unified_job_template: template.id, rrule: rruleIn(3600), extra_data: { word: 'opensesame' } });
    assert.equal(s.status, 201, s.text);
    assert.deepEqual(s.body.extra_data, { word: '$encrypted$' });
    assert.ok(!JSON.stringify((await t.get(`/api/v2/schedules/${s.body.id}/`)).body).includes('opensesame'));
    assert.ok(!JSON.stringify((await t.get('/api/v2/activity_stream/?object1=schedule')).body).includes('opensesame'));
    const [stored] = await t.db.query<AnyRow>('SELECT extra_data FROM schedules WHERE id = $1', [s.body.id]);
    assert.ok(!JSON.stringify(stored).includes('opensesame'));
    // "$encrypted$" sent back keeps the stored answer.
    const kept = await t.patch(`/api/v2/schedules/${s.body.id}/`, { extra_data: { word: '$encrypted$' }, description: 'x' });
    assert.equal(kept.status, 200, kept.text);
    await t.db.query<AnyRow>("UPDATE schedules SET next_run = now() - interval '1 second' WHERE id = $1", [s.body.id]);
    await launchDueSchedules(t.services);
    const [job] = await jobsOf(t, s.body.id);
    assert.ok(job, 'the scheduled job');
    const detail = (await t.get(`/api/v2/jobs/${job.id}/`)).body;
    assert.ok(!JSON.stringify(detail).includes('opensesame'));
    const [run] = await t.db.query<AnyRow>('SELECT extra_vars FROM unified_jobs WHERE id = $1', [job.id]);
    assert.ok(JSON.parse(run.extra_vars).word.startsWith('$encrypted$'));
  });

  it('a schedule made while the scheduler sleeps wakes it (NOTIFY), not a poll', async () => {
    const { template } = await scheduledTemplate(t);
    running.push(await startScheduler(t.services));
    const s = await t.post('/api/v2/schedules/', { name: 'Woken', unified_job_template: template.id, rrule: rruleIn(2) });
    await eventually(async () => ((await jobsOf(t, s.body.id)).length ? true : null), 15_000, 'the woken launch');
  });
});
