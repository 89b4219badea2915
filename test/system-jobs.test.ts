import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { grant, newOrg, newUser, type User } from './helpers/factories.ts';
import { eventually, waitForRun } from './helpers/jobs.ts';

describe('system job templates and system jobs', () => {
  let t: TestApp;
  let templates: Record<string, any>;
  let plain: User;
  let orgAdmin: User;

  before(async () => {
    t = await createTestApp();
    const res = await t.get('/api/v2/system_job_templates/');
    assert.equal(res.status, 200, res.text);
    templates = Object.fromEntries(res.body.results.map((r: any) => [r.job_type, r]));
    plain = await newUser(t);
    orgAdmin = await newUser(t);
    await grant(t, orgAdmin, `/api/v2/organizations/${(await newOrg(t)).id}/`, 'admin_role');
  });
  after(() => t.close());

  it('installs the templates AWX has, each with its default schedule', async () => {
    assert.deepEqual(Object.keys(templates).sort(), ['cleanup_activitystream', 'cleanup_jobs', 'cleanup_sessions', 'cleanup_tokens']);
    assert.equal(templates.cleanup_jobs.name, 'Cleanup Job Details');
    assert.equal(templates.cleanup_jobs.related.launch, `/api/v2/system_job_templates/${templates.cleanup_jobs.id}/launch/`);
    const schedules = await eventually(async () => {
      const res = await t.get(`/api/v2/system_job_templates/${templates.cleanup_jobs.id}/schedules/`);
      return res.body.results[0]?.next_run ? res.body.results : null;
    }, 10_000, 'the computed default schedule');
    assert.equal(schedules[0].name, 'Cleanup Job Schedule');
    assert.deepEqual(schedules[0].extra_data, { days: '120' });
    assert.match(schedules[0].rrule, /^DTSTART:\d{8}T\d{6}Z RRULE:FREQ=WEEKLY;INTERVAL=1;BYDAY=SU$/);
    assert.equal(schedules[0].timezone, 'UTC');
    const unified = await t.get('/api/v2/unified_job_templates/?type=system_job_template');
    assert.equal(unified.body.count, 4);
  });

  it('cleanup_jobs launched with days deletes older runs and keeps the recent ones', async () => {
    const [old] = await t.db.query(
      "INSERT INTO unified_jobs (kind, name, status, launch_type, created, finished) VALUES ('job', 'old', 'successful', 'manual', now() - interval '200 days', now() - interval '200 days') RETURNING id");
    const [recent] = await t.db.query("INSERT INTO unified_jobs (kind, name, status, launch_type, finished) VALUES ('job', 'recent', 'successful', 'manual', now()) RETURNING id");
    assert.deepEqual((await t.get(`/api/v2/system_job_templates/${templates.cleanup_jobs.id}/launch/`)).body, {});
    const res = await t.post(`/api/v2/system_job_templates/${templates.cleanup_jobs.id}/launch/`, { extra_vars: { days: 30 } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.system_job, res.body.id);
    assert.equal(res.body.job_type, 'cleanup_jobs');
    const done = await waitForRun(t, `/api/v2/system_jobs/${res.body.id}/`);
    assert.equal(done.status, 'successful', JSON.stringify(done));
    assert.equal((await t.get(`/api/v2/jobs/${old.id}/`)).status, 404);
    assert.equal((await t.get(`/api/v2/jobs/${recent.id}/`)).status, 200);
    const stdout = await t.get(`/api/v2/system_jobs/${res.body.id}/stdout/?format=txt`);
    assert.match(stdout.text, /jobs: 1 deleted/);
    assert.ok((await t.get('/api/v2/unified_jobs/?type=system_job')).body.count >= 1);
    const template = (await t.get(`/api/v2/system_job_templates/${templates.cleanup_jobs.id}/`)).body;
    assert.equal(template.status, 'successful');
  });

  it('cleanup_activitystream deletes entries older than days', async () => {
    await t.db.query("INSERT INTO activity_stream (operation, object1, object1_id, timestamp) VALUES ('create', 'team', 999999, now() - interval '400 days')");
    const res = await t.post(`/api/v2/system_job_templates/${templates.cleanup_activitystream.id}/launch/`, { extra_vars: { days: 355 } });
    assert.equal(res.status, 201, res.text);
    assert.equal((await waitForRun(t, `/api/v2/system_jobs/${res.body.id}/`)).status, 'successful');
    assert.equal((await t.db.query('SELECT 1 FROM activity_stream WHERE object1_id = 999999')).length, 0);
  });

  it('refuses options a system job does not take', async () => {
    const id = templates.cleanup_jobs.id;
    const negative = await t.post(`/api/v2/system_job_templates/${id}/launch/`, { extra_vars: { days: -1 } });
    assert.equal(negative.status, 400);
    assert.deepEqual(negative.body.extra_vars, ['days must be a positive integer.']);
    const unknown = await t.post(`/api/v2/system_job_templates/${id}/launch/`, { extra_vars: { rm: '-rf' } });
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.extra_vars[0], /Variables rm are not allowed for system jobs/);
    const schedule = await t.post(`/api/v2/system_job_templates/${id}/schedules/`, { name: 'Bad days', rrule: 'DTSTART:20300101T000000Z RRULE:FREQ=DAILY;INTERVAL=1', extra_data: { days: 'soon' } });
    assert.equal(schedule.status, 400, schedule.text);
    assert.deepEqual(schedule.body.extra_data, ['days must be a positive integer.']);
  });

  it('a scheduled system job runs with the schedule extra_data', async () => {
    const id = templates.cleanup_sessions.id;
    const stamp = new Date(Date.now() + 2000).toISOString().replace(/[-:]/g, '').slice(0, 15);
    const s = await t.post(`/api/v2/system_job_templates/${id}/schedules/`, { name: 'Soon', rrule: `DTSTART:${stamp}Z RRULE:FREQ=DAILY;INTERVAL=1` });
    assert.equal(s.status, 201, s.text);
    const [job] = await eventually(async () => (await t.get(`/api/v2/schedules/${s.body.id}/jobs/`)).body.results.length
      ? (await t.get(`/api/v2/schedules/${s.body.id}/jobs/`)).body.results : null, 15_000, 'the scheduled system job');
    assert.equal(job.type, 'system_job');
    assert.equal(job.launch_type, 'scheduled');
    assert.equal((await waitForRun(t, `/api/v2/system_jobs/${job.id}/`)).status, 'successful');
  });

  it('notifies the notification templates attached to a system job template', async () => {
    const org = (await newOrg(t)).id;
    const hook = await t.post('/api/v2/notification_templates/', {
      name: 'system hook', organization: org, notification_type: 'webhook', notification_configuration: { url: 'https://example.invalid/hook', headers: {} },
    });
    assert.equal(hook.status, 201, hook.text);
    const list = `/api/v2/system_job_templates/${templates.cleanup_tokens.id}/notification_templates_success/`;
    assert.equal((await t.post(list, { id: hook.body.id }, { as: orgAdmin })).status, 403);
    assert.equal((await t.post(list, { id: hook.body.id })).status, 204);
    const res = await t.post(`/api/v2/system_job_templates/${templates.cleanup_tokens.id}/launch/`, {});
    assert.equal((await waitForRun(t, `/api/v2/system_jobs/${res.body.id}/`)).status, 'successful');
    const made = await eventually(async () => {
      const rows = await t.db.query("SELECT * FROM notifications WHERE unified_job_id = $1 AND event = 'success'", [res.body.id]);
      return rows.length ? rows : null;
    }, 10_000, 'the success notification');
    assert.equal(made![0].notification_template_id, hook.body.id);
  });

  it('a plain user and an organization admin can neither read nor launch nor schedule system job templates', async () => {
    const id = templates.cleanup_jobs.id;
    for (const who of [plain, orgAdmin]) {
      assert.equal((await t.get('/api/v2/system_job_templates/', { as: who })).status, 403);
      assert.ok([403, 404].includes((await t.get(`/api/v2/system_job_templates/${id}/`, { as: who })).status));
      assert.ok([403, 404].includes((await t.post(`/api/v2/system_job_templates/${id}/launch/`, { extra_vars: { days: 0 } }, { as: who })).status));
      const schedule = await t.post('/api/v2/schedules/', { name: 'Sneaky', unified_job_template: id, rrule: 'DTSTART:20300101T000000Z RRULE:FREQ=DAILY;INTERVAL=1' }, { as: who });
      assert.equal(schedule.status, 403, schedule.text);
      assert.equal((await t.get('/api/v2/system_jobs/', { as: who })).status, 403);
      assert.equal((await t.get('/api/v2/unified_job_templates/?type=system_job_template', { as: who })).body.count, 0);
      assert.ok(!(await t.get('/api/v2/schedules/', { as: who })).body.results.some((s: any) => s.unified_job_template === id));
    }
    assert.equal((await t.get('/api/v2/schedules/?name=Sneaky')).body.count, 0);
  });

  it('a system auditor reads system job templates but cannot launch them', async () => {
    const auditor = await newUser(t, { is_system_auditor: true });
    assert.equal((await t.get('/api/v2/system_job_templates/', { as: auditor })).body.count, 4);
    assert.equal((await t.post(`/api/v2/system_job_templates/${templates.cleanup_tokens.id}/launch/`, {}, { as: auditor })).status, 403);
  });
});
