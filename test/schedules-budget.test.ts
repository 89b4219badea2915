import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { grant, newUser, type User } from './helpers/factories.ts';
import { eventually } from './helpers/jobs.ts';
import { scheduledTemplate } from './helpers/schedules.ts';
import { startScheduler } from '../src/task-manager/scheduler.ts';

/** Rules the rrule package would walk for seconds or forever: each must be refused at once. */
const HOSTILE: [string, string][] = [
  ['never occurs (the 366th day is in December)', 'DTSTART:20250101T000000Z RRULE:FREQ=DAILY;INTERVAL=1;BYYEARDAY=366;BYMONTH=2'],
  ['never leaves its first period (hours 0, 6, 12, 18 never reach 01:00)', 'DTSTART:20250101T000000Z RRULE:FREQ=HOURLY;INTERVAL=6;BYHOUR=1'],
  ['runs minutely on a day that does not exist', 'DTSTART:20250101T000000Z RRULE:FREQ=MINUTELY;INTERVAL=1;BYMONTH=2;BYMONTHDAY=30'],
  ['names an hour no day has (BYHOUR=25)', 'DTSTART:20250101T000000Z RRULE:FREQ=MINUTELY;INTERVAL=1;BYHOUR=25'],
  ['excludes by an EXRULE that never occurs', 'DTSTART:20250101T000000Z RRULE:FREQ=DAILY;INTERVAL=1 EXRULE:FREQ=DAILY;INTERVAL=1;BYMONTH=2;BYMONTHDAY=30'],
  ['first occurs past the horizon (Monday 29 February 2044)', 'DTSTART:20250101T000000Z RRULE:FREQ=YEARLY;INTERVAL=1;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO'],
];
const FINE = 'DTSTART;TZID=Europe/Paris:20300101T090000 RRULE:FREQ=DAILY;INTERVAL=1';

const refusal = /too much work|no occurrence within 5 years/;

describe('schedule rules are expanded with a budget', () => {
  let t: TestApp;
  let member: User;
  let adminB: User;
  let templateA: any;
  let templateB: any;
  let workflowB: any;

  before(async () => {
    t = await createTestApp({}, { dispatcher: false });
    const a = await scheduledTemplate(t);
    const b = await scheduledTemplate(t);
    templateA = a.template;
    templateB = b.template;
    member = await newUser(t, { member: a.org });
    await grant(t, member, `/api/v2/job_templates/${templateA.id}/`, 'execute_role');
    adminB = await newUser(t, { admin: b.org });
    workflowB = (await t.post('/api/v2/workflow_job_templates/', { name: 'Budget WF', organization: b.org })).body;
  });
  after(() => t.close());

  const countSchedules = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM schedules'))[0].n;

  for (const [what, rrule] of HOSTILE) {
    it(`a rule that ${what}: preview and every save answer 400 {rrule}, nothing stored`, async () => {
      const stored = await countSchedules();
      for (const [who, as] of [['member', () => member], ['adminB', () => adminB]] as const) {
        const preview = await t.post('/api/v2/schedules/preview/', { rrule }, { as: as() });
        assert.equal(preview.status, 400, `${who}: ${preview.text}`);
        assert.match(preview.body.rrule[0], refusal);
      }
      const saves: [User, string, Record<string, unknown>][] = [
        [member, '/api/v2/schedules/', { name: 'Hostile', unified_job_template: templateA.id, rrule }],
        [member, `/api/v2/job_templates/${templateA.id}/schedules/`, { name: 'Hostile', rrule }],
        [adminB, '/api/v2/schedules/', { name: 'Hostile', unified_job_template: templateB.id, rrule }],
        [adminB, `/api/v2/job_templates/${templateB.id}/schedules/`, { name: 'Hostile', rrule }],
        [adminB, `/api/v2/workflow_job_templates/${workflowB.id}/schedules/`, { name: 'Hostile', rrule }],
      ];
      for (const [as, url, body] of saves) {
        const res = await t.post(url, body, { as });
        assert.equal(res.status, 400, `${url}: ${res.text}`);
        assert.match(res.body.rrule[0], refusal, url);
      }
      assert.equal(await countSchedules(), stored);
    });
  }

  it('PUT and PATCH with such a rule answer 400 and keep the stored rule', async () => {
    const made = await t.post(`/api/v2/job_templates/${templateB.id}/schedules/`, { name: 'Kept', rrule: FINE }, { as: adminB });
    assert.equal(made.status, 201, made.text);
    for (const [, rrule] of HOSTILE) {
      const patched = await t.patch(`/api/v2/schedules/${made.body.id}/`, { rrule }, { as: adminB });
      assert.equal(patched.status, 400, patched.text);
      assert.match(patched.body.rrule[0], refusal);
      const put = await t.put(`/api/v2/schedules/${made.body.id}/`, { name: 'Kept', unified_job_template: templateB.id, rrule }, { as: adminB });
      assert.equal(put.status, 400, put.text);
    }
    const shown = (await t.get(`/api/v2/schedules/${made.body.id}/`)).body;
    assert.equal(shown.rrule, FINE);
    assert.equal(shown.next_run, '2030-01-01T08:00:00.000Z');
  });

  it("another organization's admin gets 403 on this one's schedule, and its rule stays", async () => {
    const made = await t.post(`/api/v2/job_templates/${templateA.id}/schedules/`, { name: 'Admin made', rrule: FINE });
    const res = await t.patch(`/api/v2/schedules/${made.body.id}/`, { rrule: HOSTILE[0][1] }, { as: adminB });
    assert.equal(res.status, 403, res.text);
    assert.equal((await t.get(`/api/v2/schedules/${made.body.id}/`)).body.rrule, FINE);
  });

  it('ordinary rules, rare ones and rules started decades ago are still accepted', async () => {
    const cases: [string, string][] = [
      ['DTSTART:20250101T000000Z RRULE:FREQ=YEARLY;INTERVAL=1;BYMONTH=2;BYMONTHDAY=29', '2028-02-29T00:00:00Z'],
      ['DTSTART;TZID=America/New_York:19700105T090000 RRULE:FREQ=WEEKLY;INTERVAL=1;BYDAY=MO,WE,FR', ''],
      ['DTSTART:19700101T000000Z RRULE:FREQ=MONTHLY;INTERVAL=1;BYDAY=MO;BYSETPOS=1', ''],
      ['DTSTART:19700101T000000Z RRULE:FREQ=DAILY;INTERVAL=3;BYHOUR=1,13', ''],
      ['DTSTART:20300101T000000Z RRULE:FREQ=MINUTELY;INTERVAL=90;BYHOUR=3', ''],
    ];
    for (const [rrule, first] of cases) {
      const preview = await t.post('/api/v2/schedules/preview/', { rrule }, { as: member });
      assert.equal(preview.status, 200, `${rrule}: ${preview.text}`);
      assert.ok(preview.body.utc.length > 0, rrule);
      if (first) assert.equal(preview.body.utc[0], first);
      const made = await t.post(`/api/v2/job_templates/${templateA.id}/schedules/`, { name: `Fine ${rrule}`, rrule }, { as: member });
      assert.equal(made.status, 201, `${rrule}: ${made.text}`);
      assert.ok(made.body.next_run, rrule);
    }
  });

  it('a rule that has ended still previews nothing and saves without a next run', async () => {
    const rrule = 'DTSTART:20200101T000000Z RRULE:FREQ=DAILY;INTERVAL=1;COUNT=3';
    const preview = await t.post('/api/v2/schedules/preview/', { rrule }, { as: member });
    assert.equal(preview.status, 200, preview.text);
    assert.deepEqual(preview.body.utc, []);
    const made = await t.post(`/api/v2/job_templates/${templateA.id}/schedules/`, { name: 'Ended', rrule }, { as: member });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.next_run, null);
    assert.equal(made.body.dtend, '2020-01-03T00:00:00.000Z');
  });

  describe('schedules stored before the budget', () => {
    let hostileId: number;
    let storedId: number;

    before(async () => {
      const insert = (name: string, rrule: string) => t.db.query<{ id: number }>(
        'INSERT INTO schedules (name, unified_job_template_id, rrule, enabled) VALUES ($1, $2, $3, true) RETURNING id', [name, templateB.id, rrule],
      );
      [{ id: hostileId }] = await insert('Stored hostile', HOSTILE[0][1]);
      [{ id: storedId }] = await insert('Stored fine', FINE);
    });

    it('are computed beside a started scheduler: a usable rule gets its next run, an unusable one none', async () => {
      const scheduler = await startScheduler(t.services);
      try {
        const computed = await eventually(async () => (await t.get(`/api/v2/schedules/${storedId}/`)).body.next_run, 30_000, 'the stored schedule computed');
        assert.equal(computed, '2030-01-01T08:00:00.000Z');
        const hostile = (await t.get(`/api/v2/schedules/${hostileId}/`)).body;
        assert.equal(hostile.next_run, null);
        assert.equal(hostile.dtstart, null);
      } finally {
        await scheduler.stop();
      }
    });

    it('an unusable stored schedule can still be disabled, but not saved unchanged otherwise', async () => {
      const renamed = await t.patch(`/api/v2/schedules/${hostileId}/`, { name: 'Renamed' }, { as: adminB });
      assert.equal(renamed.status, 400, renamed.text);
      assert.match(renamed.body.rrule[0], refusal);
      const disabled = await t.patch(`/api/v2/schedules/${hostileId}/`, { enabled: false }, { as: adminB });
      assert.equal(disabled.status, 200, disabled.text);
      assert.equal(disabled.body.enabled, false);
      assert.equal(disabled.body.next_run, null);
    });
  });
});
