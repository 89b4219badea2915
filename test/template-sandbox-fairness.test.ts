// The Jinja sandbox shared across organizations, through the API: one organization's user floods the
// sandbox with templates that run to their time limit (dynamic survey choices as a plain member with
// execute, an event rule's dry run as its organization's admin) while another organization's trivial
// render answers at once. Order is checked by which answers arrive first, never by a clock.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type Response, type TestApp } from './helpers/app.ts';
import { grant, newOrg, newUser, type User } from './helpers/factories.ts';

/** Runs until its process is stopped at the time limit. */
const RUNAWAY_TEMPLATE = '{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}[]';
/** An expression that runs until the time limit or the sandbox's heap stops it. */
const RUNAWAY_EXPRESSION = '(range(2000000) | join(",")) | length > 0';

/**
 * Sends `flood` (requests of one organization), waits for the first of them to answer (the rest are
 * then waiting for the sandbox), sends `trivial` (another organization's) and answers how many of the
 * flood had answered when it did, and every answer.
 */
async function floodThenTrivial(flood: (() => Promise<Response>)[], trivial: () => Promise<Response>) {
  let answered = 0;
  const counted = flood.map((send) => send().then((res) => {
    answered++;
    return res;
  }));
  await Promise.race(counted);
  const before = answered;
  const trivialAnswer = await trivial();
  const whileTrivial = answered - before;
  return { whileTrivial, trivialAnswer, flooded: await Promise.all(counted) };
}

describe('Jinja sandbox shared across organizations, through the API', () => {
  let t: TestApp;
  let orgA: number;
  let orgB: number;
  let adminA: User;
  let adminB: User;
  let memberA: User;
  let memberB: User;

  before(async () => {
    t = await createTestApp();
    orgA = (await newOrg(t)).id;
    orgB = (await newOrg(t)).id;
    adminA = await newUser(t, { admin: orgA });
    adminB = await newUser(t, { admin: orgB });
    memberA = await newUser(t, { member: orgA });
    memberB = await newUser(t, { member: orgB });
  });
  after(() => t.close());

  /** A workflow job template of `org` whose survey has one jinja2 dynamic question, executable by `executor`. */
  async function templateWithChoices(org: number, template: string, executor: User): Promise<string> {
    const created = await t.post('/api/v2/workflow_job_templates/', { name: `choices-${org}`, organization: org });
    assert.equal(created.status, 201, created.text);
    const base = `/api/v2/workflow_job_templates/${created.body.id}/`;
    const spec = { name: 'S', description: '', spec: [{ question_name: 'pick', required: false, type: 'multiplechoice', variable: 'pick', dynamic_choices: { enabled: true, source_type: 'jinja2', template } }] };
    assert.equal((await t.post(`${base}survey_spec/`, spec)).status, 200);
    await grant(t, executor, base, 'execute_role');
    return `${base}survey_spec/dynamic_choices/`;
  }

  it("answers a plain member's trivial dynamic choices while another organization's member floods the sandbox", async () => {
    const slow = await templateWithChoices(orgA, RUNAWAY_TEMPLATE, memberA);
    const quick = await templateWithChoices(orgB, '{{ ["blue", "green"] | tojson }}', memberB);
    const { whileTrivial, trivialAnswer, flooded } = await floodThenTrivial(
      Array.from({ length: 5 }, () => () => t.post(slow, {}, { as: memberA })),
      () => t.post(quick, {}, { as: memberB }),
    );
    assert.equal(trivialAnswer.status, 200, trivialAnswer.text);
    assert.deepEqual(trivialAnswer.body.pick, { choices: ['blue', 'green'], source_type: 'jinja2' });
    assert.ok(whileTrivial <= 1, `${whileTrivial} of the flood answered while the trivial request waited`);
    for (const res of flooded) {
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.pick.choices, []);
      assert.match(res.body.pick.error, /longer than 2000 ms and was stopped/);
    }
  });

  it("answers an organization admin's dry run of a trivial condition while another organization's admin floods the sandbox", async () => {
    const rule = async (org: number, expression: string) => {
      const notification = await t.post('/api/v2/notification_templates/', { name: `tell-${org}`, organization: org, notification_type: 'webhook', notification_configuration: { url: 'http://127.0.0.1:9/x', headers: {} } });
      assert.equal(notification.status, 201, notification.text);
      const actions = [{ action_type: 'send_notification', target_id: notification.body.id, description: '' }];
      const res = await t.post('/api/v2/event_rules/', { name: `rule-${org}`, organization: org, webhook_path: `fair-${org}`, conditions: [{ jinja2_expression: expression, description: '' }], actions });
      assert.equal(res.status, 201, res.text);
      return `/api/v2/event_rules/${res.body.id}/test/`;
    };
    const slow = await rule(orgA, RUNAWAY_EXPRESSION);
    const quick = await rule(orgB, 'event.severity == "critical"');
    const { whileTrivial, trivialAnswer, flooded } = await floodThenTrivial(
      Array.from({ length: 5 }, () => () => t.post(slow, { payload: {} }, { as: adminA })),
      () => t.post(quick, { payload: { severity: 'critical' } }, { as: adminB }),
    );
    assert.equal(trivialAnswer.status, 200, trivialAnswer.text);
    assert.equal(trivialAnswer.body.matched, true);
    assert.ok(whileTrivial <= 1, `${whileTrivial} of the flood answered while the trivial request waited`);
    for (const res of flooded) {
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.matched, false);
      assert.match(res.body.condition_results[0].error, /longer than 1000 ms|too much memory/);
    }
  });
});
