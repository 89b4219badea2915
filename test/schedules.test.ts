import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { grant, newUser } from './helpers/factories.ts';
import { scheduledTemplate } from './helpers/schedules.ts';
import { launchDueSchedules } from '../src/task-manager/scheduler.ts';

const RULE = 'DTSTART;TZID=America/New_York:20300101T090000 RRULE:FREQ=DAILY;INTERVAL=1';

describe('schedules', () => {
  let t: TestApp;
  let template: any;
  let inventory: number;

  before(async () => {
    t = await createTestApp({}, { dispatcher: false });
    ({ template, inventory } = await scheduledTemplate(t, { ask_limit_on_launch: true }));
  });
  after(() => t.close());

  it('creates a schedule on a job template with its computed fields', async () => {
    const res = await t.post(`/api/v2/job_templates/${template.id}/schedules/`, { name: 'Daily', rrule: RULE, limit: 'web' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.unified_job_template, template.id);
    assert.equal(res.body.timezone, 'America/New_York');
    assert.equal(res.body.until, '');
    assert.equal(res.body.dtstart, '2030-01-01T14:00:00.000Z');
    assert.equal(res.body.dtend, null);
    assert.equal(res.body.next_run, '2030-01-01T14:00:00.000Z');
    assert.equal(res.body.limit, 'web');
    const listed = await t.get(`/api/v2/job_templates/${template.id}/schedules/`);
    assert.deepEqual(listed.body.results.map((s: any) => s.name), ['Daily']);
    assert.equal((await t.get(`/api/v2/job_templates/${template.id}/`)).body.next_job_run, '2030-01-01T14:00:00.000Z');
    const disabled = await t.patch(`/api/v2/schedules/${res.body.id}/`, { enabled: false });
    assert.equal(disabled.status, 200, disabled.text);
    assert.equal(disabled.body.next_run, null);
    assert.equal((await t.get(`/api/v2/job_templates/${template.id}/`)).body.next_job_run, null);
  });

  it('computes until and dtend from UNTIL given in the local time of DTSTART', async () => {
    const res = await t.post('/api/v2/schedules/', {
      name: 'Until', unified_job_template: template.id, rrule: 'DTSTART;TZID=Europe/Paris:20300101T100000 RRULE:FREQ=DAILY;INTERVAL=1;UNTIL=20300105T100000',
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.until, '2030-01-05T10:00:00');
    assert.equal(res.body.dtend, '2030-01-05T09:00:00.000Z');
  });

  it('a rule that ends decades ahead (minutely) gets its dtend from a walk over its last periods', async () => {
    const res = await t.post('/api/v2/schedules/', {
      name: 'Long', unified_job_template: template.id, rrule: 'DTSTART;TZID=Europe/Paris:20300101T000000 RRULE:FREQ=MINUTELY;INTERVAL=1;UNTIL=20990101T000000',
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.dtend, '2098-12-31T23:00:00.000Z');
    assert.equal(res.body.until, '2099-01-01T00:00:00');
  });

  it('refuses each rrule form AWX refuses, with its message, and stores nothing', async () => {
    const cases: [string, RegExp][] = [
      ['RRULE:FREQ=DAILY;INTERVAL=1', /Valid DTSTART required/],
      ['DTSTART:20300101T000000 RRULE:FREQ=DAILY;INTERVAL=1', /naive datetime/],
      ['DTSTART:20300101T000000Z DTSTART:20300102T000000Z RRULE:FREQ=DAILY;INTERVAL=1', /Multiple DTSTART/],
      ['DTSTART:20300101T000000Z', /One or more rule required/],
      ['DTSTART:20300101T000000Z RRULE:FREQ=DAILY', /INTERVAL required/],
      ['DTSTART:20300101T000000Z RRULE:FREQ=SECONDLY;INTERVAL=1', /SECONDLY is not supported/],
      ['DTSTART:20300101T000000Z RRULE:FREQ=MINUTELY;INTERVAL=1;BYSECOND=5', /BYSECOND is not supported/],
      ['DTSTART:20300101T000000Z RRULE:FREQ=YEARLY;INTERVAL=1;BYEASTER=0', /BYEASTER is not supported/],
      ['DTSTART:20300101T000000Z RRULE:FREQ=DAILY;INTERVAL=1;COUNT=1000', /COUNT > 999/],
      ['DTSTART:20300101T000000Z RRULE:FREQ=DAILY;INTERVAL=1;COUNT=5;UNTIL=20300201T000000Z', /both COUNT and UNTIL/],
      ['DTSTART:20300101T000000Z RRULE:FREQ=MONTHLY;INTERVAL=1;BYDAY=2MO', /BYDAY with numeric prefix/],
      ['DTSTART:20300101T000000Z RRULE:FREQ=DAILY;INTERVAL=1 RDATE:20300102T000000Z', /RDATE not allowed/],
      ['DTSTART:20300101T000000Z RRULE:FREQ=DAILY;INTERVAL=1 EXDATE:20301302T000000Z', /invalid EXDATE/],
      ['DTSTART:20300101T000000Z RRULE:FREQ=DAILY;INTERVAL=1 EXDATE;TZID=Mars/Olympus:20300102T000000', /unknown EXDATE TZID/],
      ['DTSTART;TZID=Mars/Olympus:20300101T000000 RRULE:FREQ=DAILY;INTERVAL=1', /valid TZID/],
      ['DTSTART:20300101T000000Z RRULE:FREQ=FORTNIGHTLY;INTERVAL=1', /rrule parsing failed/],
    ];
    for (const [rrule, message] of cases) {
      const res = await t.post('/api/v2/schedules/', { name: 'Bad', unified_job_template: template.id, rrule });
      assert.equal(res.status, 400, `${rrule}: ${res.text}`);
      assert.ok(res.body.rrule.some((m: string) => message.test(m)), `${rrule}: ${res.text}`);
      const preview = await t.post('/api/v2/schedules/preview/', { rrule });
      assert.equal(preview.status, 400, rrule);
    }
    assert.equal((await t.get('/api/v2/schedules/?name=Bad')).body.count, 0);
  });

  it('accepts several RRULE and EXRULE lines', async () => {
    const rrule = 'DTSTART:20300101T000000Z RRULE:FREQ=DAILY;INTERVAL=1 RRULE:FREQ=HOURLY;INTERVAL=12 EXRULE:FREQ=DAILY;INTERVAL=2';
    const res = await t.post('/api/v2/schedules/preview/', { rrule });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.utc.slice(0, 3), ['2030-01-01T12:00:00Z', '2030-01-02T00:00:00Z', '2030-01-02T12:00:00Z']);
  });

  it('leaves out the dates EXDATE names, in UTC, in its own zone or in the zone of DTSTART', async () => {
    const rrule = 'DTSTART;TZID=America/New_York:20300105T090000 RRULE:FREQ=DAILY;INTERVAL=1;COUNT=6 '
      + 'EXDATE:20300106T140000Z EXDATE;TZID=Europe/Paris:20300107T150000 EXDATE;TZID=America/New_York:20300108T090000,20300109T090000';
    const res = await t.post('/api/v2/schedules/preview/', { rrule });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.local, ['2030-01-05T09:00:00-05:00', '2030-01-10T09:00:00-05:00']);
    const made = await t.post('/api/v2/schedules/', { name: 'With exceptions', unified_job_template: template.id, rrule });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.dtend, '2030-01-10T14:00:00.000Z');
  });

  it('previews the next 10 runs across a DST change (America/New_York, March)', async () => {
    const res = await t.post('/api/v2/schedules/preview/', { rrule: 'DTSTART;TZID=America/New_York:20300305T093000 RRULE:FREQ=DAILY;INTERVAL=1;COUNT=10' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.local.length, 10);
    assert.equal(res.body.local[0], '2030-03-05T09:30:00-05:00');
    assert.equal(res.body.utc[0], '2030-03-05T14:30:00Z');
    // DST starts on 10 March 2030: same wall-clock time, one hour earlier in UTC.
    assert.equal(res.body.local[5], '2030-03-10T09:30:00-04:00');
    assert.equal(res.body.utc[5], '2030-03-10T13:30:00Z');
  });

  it('skips a wall-clock time that a DST change does not have', async () => {
    const res = await t.post('/api/v2/schedules/preview/', { rrule: 'DTSTART;TZID=America/New_York:20300308T023000 RRULE:FREQ=DAILY;INTERVAL=1;COUNT=4' });
    assert.deepEqual(res.body.local, ['2030-03-08T02:30:00-05:00', '2030-03-09T02:30:00-05:00', '2030-03-11T02:30:00-04:00']);
  });

  it('lists the zones', async () => {
    const res = await t.get('/api/v2/schedules/zoneinfo/');
    assert.equal(res.status, 200);
    assert.ok(res.body.zones.includes('America/New_York'));
    assert.ok(res.body.zones.includes('UTC'));
  });

  it('refuses prompts the template does not ask for, and extra_data it cannot take', async () => {
    const res = await t.post('/api/v2/schedules/', { name: 'Prompted', unified_job_template: template.id, rrule: RULE, inventory, job_tags: 'x', extra_data: { color: 'red' } });
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(res.body.inventory, ['Field is not configured to prompt on launch.']);
    assert.deepEqual(res.body.job_tags, ['Field is not configured to prompt on launch.']);
    assert.match(res.body.extra_data[0], /Variables color are not allowed on launch/);
    assert.equal((await t.get('/api/v2/schedules/?name=Prompted')).body.count, 0);
  });

  it('checks extra_data against the survey', async () => {
    const { template: surveyed } = await scheduledTemplate(t);
    const spec = { name: '', description: '', spec: [{ question_name: 'Color', variable: 'color', type: 'multiplechoice', choices: ['red', 'blue'], required: true, default: '' }] };
    assert.equal((await t.post(`/api/v2/job_templates/${surveyed.id}/survey_spec/`, spec)).status, 200);
    await t.patch(`/api/v2/job_templates/${surveyed.id}/`, { survey_enabled: true });
    const bad = await t.post('/api/v2/schedules/', { name: 'S', unified_job_template: surveyed.id, rrule: RULE, extra_data: { color: 'green' } });
    assert.equal(bad.status, 400, bad.text);
    assert.ok(bad.body.variables_needed_to_start, bad.text);
    const good = await t.post('/api/v2/schedules/', { name: 'S', unified_job_template: surveyed.id, rrule: RULE, extra_data: { color: 'red' } });
    assert.equal(good.status, 201, good.text);
  });

  it('a plain user and another organization admin cannot see or create schedules of a template they cannot execute', async () => {
    const created = await t.post(`/api/v2/job_templates/${template.id}/schedules/`, { name: 'Private', rrule: RULE });
    assert.equal(created.status, 201, created.text);
    const plain = await newUser(t);
    const { org: otherOrg } = await scheduledTemplate(t);
    const otherAdmin = await newUser(t);
    await grant(t, otherAdmin, `/api/v2/organizations/${otherOrg}/`, 'admin_role');
    for (const who of [plain, otherAdmin]) {
      assert.equal((await t.get(`/api/v2/schedules/${created.body.id}/`, { as: who })).status, 403);
      assert.ok(!(await t.get('/api/v2/schedules/', { as: who })).body.results.some((s: any) => s.unified_job_template === template.id));
      const post = await t.post('/api/v2/schedules/', { name: 'Mine', unified_job_template: template.id, rrule: RULE }, { as: who });
      assert.equal(post.status, 403, post.text);
      const nested = await t.post(`/api/v2/job_templates/${template.id}/schedules/`, { name: 'Mine', rrule: RULE }, { as: who });
      assert.ok([403, 404].includes(nested.status), nested.text);
      assert.equal((await t.patch(`/api/v2/schedules/${created.body.id}/`, { enabled: false }, { as: who })).status, 403);
    }
    assert.equal((await t.get(`/api/v2/schedules/?name=Mine`)).body.count, 0);
  });

  it('a user who may execute the template creates a schedule and may change only their own', async () => {
    const runner = await newUser(t);
    await grant(t, runner, `/api/v2/job_templates/${template.id}/`, 'execute_role');
    const mine = await t.post('/api/v2/schedules/', { name: 'Runner', unified_job_template: template.id, rrule: RULE }, { as: runner });
    assert.equal(mine.status, 201, mine.text);
    assert.equal((await t.patch(`/api/v2/schedules/${mine.body.id}/`, { description: 'x' }, { as: runner })).status, 200);
    const admins = await t.post('/api/v2/schedules/', { name: 'Admins', unified_job_template: template.id, rrule: RULE });
    assert.equal((await t.patch(`/api/v2/schedules/${admins.body.id}/`, { description: 'x' }, { as: runner })).status, 403);
    assert.equal((await t.get(`/api/v2/schedules/${admins.body.id}/`, { as: runner })).status, 200);
  });

  it('a job template deleted takes its schedules with it', async () => {
    const { template: doomed } = await scheduledTemplate(t);
    const s = await t.post(`/api/v2/job_templates/${doomed.id}/schedules/`, { name: 'Gone', rrule: RULE });
    assert.equal(s.status, 201);
    assert.equal((await t.delete(`/api/v2/job_templates/${doomed.id}/`)).status, 204);
    assert.equal((await t.get(`/api/v2/schedules/${s.body.id}/`)).status, 404);
  });
});

describe('schedules made from a job (create_schedule/)', () => {
  let t: TestApp;
  after(() => t.close());

  it('makes a disabled monthly schedule with the prompts the job was launched with', async () => {
    t = await createTestApp({}, { dispatcher: false });
    const { template } = await scheduledTemplate(t, { ask_limit_on_launch: true, ask_variables_on_launch: true });
    const job = await t.post(`/api/v2/job_templates/${template.id}/launch/`, { limit: 'web', extra_vars: { color: 'red' } });
    assert.equal(job.status, 201, job.text);
    const res = await t.post(`/api/v2/jobs/${job.body.id}/create_schedule/`, {});
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.name, `Auto-generated schedule from job ${job.body.id}`);
    assert.equal(res.body.enabled, false);
    assert.equal(res.body.next_run, null);
    assert.equal(res.body.limit, 'web');
    assert.deepEqual(res.body.extra_data, { color: 'red' });
    assert.match(res.body.rrule, /RRULE:FREQ=MONTHLY;INTERVAL=1$/);
    const again = await t.post(`/api/v2/jobs/${job.body.id}/create_schedule/`, {});
    assert.equal(again.body.name, `Auto-generated schedule from job ${job.body.id} - number 1`);
    const plain = await newUser(t);
    assert.ok([403, 404].includes((await t.post(`/api/v2/jobs/${job.body.id}/create_schedule/`, {}, { as: plain })).status));
  });
});

describe('schedules of other template kinds', () => {
  let t: TestApp;
  after(() => t.close());

  it('links the template itself, refuses manual projects, and a git project schedule launches a scheduled update', async () => {
    t = await createTestApp({}, { dispatcher: false });
    const { template, org } = await scheduledTemplate(t);
    const s = await t.post('/api/v2/schedules/', { name: 'Linked', unified_job_template: template.id, rrule: RULE });
    assert.equal(s.body.related.unified_job_template, `/api/v2/job_templates/${template.id}/`);
    assert.equal(s.body.summary_fields.unified_job_template.unified_job_type, 'job');
    const manual = await t.post(`/api/v2/projects/${template.project}/schedules/`, { name: 'Manual', rrule: RULE });
    assert.equal(manual.status, 400, manual.text);
    assert.deepEqual(manual.body.unified_job_template, ['Manual Project cannot have a schedule set.']);
    const git = await t.post('/api/v2/projects/', { name: 'Git', organization: org, scm_type: 'git', scm_url: 'https://example.invalid/repo.git' });
    assert.equal(git.status, 201, git.text);
    const prompted = await t.post(`/api/v2/projects/${git.body.id}/schedules/`, { name: 'Sync', rrule: RULE, limit: 'x' });
    assert.equal(prompted.status, 400, prompted.text);
    const sync = await t.post(`/api/v2/projects/${git.body.id}/schedules/`, { name: 'Sync', rrule: RULE });
    assert.equal(sync.status, 201, sync.text);
    await t.db.query("UPDATE schedules SET next_run = now() - interval '1 second' WHERE id = $1", [sync.body.id]);
    await launchDueSchedules(t.services);
    const runs = (await t.get(`/api/v2/schedules/${sync.body.id}/jobs/`)).body.results;
    assert.equal(runs.length, 1);
    assert.equal(runs[0].type, 'project_update');
    assert.equal(runs[0].launch_type, 'scheduled');
  });
});
