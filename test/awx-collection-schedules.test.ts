import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, ADMIN, type TestApp } from './helpers/app.ts';
import { runCollectionPlay } from './helpers/awx-collection.ts';
import { scheduledTemplate } from './helpers/schedules.ts';

const RULE = 'DTSTART;TZID=Europe/Paris:20300101T020000 RRULE:FREQ=DAILY;INTERVAL=1';

/** The awx.awx collection's schedule module (and its schedule_rrule lookup) manage Drover's schedules as AWX's. */
describe('the awx.awx schedule module', () => {
  let t: TestApp;
  let host: string;
  let template: any;

  const task = (name: string, args: object, extra: object = {}) => ({ name, 'awx.awx.schedule': args, ...extra });

  before(async () => {
    t = await createTestApp({}, { dispatcher: false });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    host = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    ({ template } = await scheduledTemplate(t, { name: 'Collection Scheduled', ask_limit_on_launch: true }));
  });
  after(() => t.close());

  it('creates, leaves unchanged, updates, refuses and deletes a schedule', async () => {
    const run = await runCollectionPlay(host, ADMIN, [
      task('create', { name: 'Nightly', unified_job_template: template.name, rrule: RULE, limit: 'web', extra_data: {}, enabled: true }),
      task('again', { name: 'Nightly', unified_job_template: template.name, rrule: RULE, limit: 'web', extra_data: {}, enabled: true }),
      task('update', { name: 'Nightly', unified_job_template: template.name, description: 'every night', enabled: false }),
      // What the collection's schedule_rrule lookup makes (the lookup itself needs pytz, which this host lacks).
      task('weekly', { name: 'Weekly', unified_job_template: template.name, rrule: 'DTSTART;TZID=America/New_York:20300107T030000 RRULE:FREQ=WEEKLY;INTERVAL=1;BYDAY=MO' }),
      task('bad rule', { name: 'Bad', unified_job_template: template.name, rrule: 'DTSTART:20300101T000000Z RRULE:FREQ=SECONDLY;INTERVAL=1' }),
      task('not asked', { name: 'Tags', unified_job_template: template.name, rrule: RULE, job_tags: 'x' }),
      task('absent', { name: 'Weekly', unified_job_template: template.name, state: 'absent' }),
    ]);
    const byName = Object.fromEntries(run.tasks.map((r) => [r.task, r]));
    assert.equal(byName.create.failed, false, JSON.stringify(byName.create.result).slice(0, 800));
    assert.equal(byName.create.changed, true);
    assert.equal(byName.again.failed, false, JSON.stringify(byName.again.result).slice(0, 800));
    assert.equal(byName.again.changed, false, JSON.stringify(byName.again.result).slice(0, 800));
    assert.equal(byName.update.failed, false, JSON.stringify(byName.update.result).slice(0, 800));
    assert.equal(byName.weekly.failed, false, JSON.stringify(byName.weekly.result));
    assert.equal(byName['bad rule'].failed, true);
    assert.match(JSON.stringify(byName['bad rule'].result), /SECONDLY is not supported/);
    assert.equal(byName['not asked'].failed, true);
    assert.match(JSON.stringify(byName['not asked'].result), /not configured to prompt on launch/);
    assert.equal(byName.absent.failed, false, JSON.stringify(byName.absent.result).slice(0, 800));

    const stored = (await t.get('/api/v2/schedules/?name=Nightly')).body.results[0];
    assert.equal(stored.unified_job_template, template.id);
    assert.equal(stored.rrule, RULE);
    assert.equal(stored.limit, 'web');
    assert.equal(stored.description, 'every night');
    assert.equal(stored.enabled, false);
    assert.equal((await t.get('/api/v2/schedules/?name=Weekly')).body.count, 0);
    assert.equal((await t.get('/api/v2/schedules/?name=Bad')).body.count, 0);
  });
});
