import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, grant, newUser, type TestApp, type User } from './helpers/app.ts';
import { rruleIn, scheduledTemplate } from './helpers/schedules.ts';
import { LEADING_DASH, NAMES_A_FILE } from '../src/ansible/option-values.ts';

/** Limits and tags a launch refuses; a schedule or a workflow node must not keep them for later. */
const HOSTILE: Array<[field: string, value: string, problem: string]> = [
  ['limit', '@/etc/passwd', NAMES_A_FILE],
  ['limit', 'web,@/etc/shadow', NAMES_A_FILE],
  ['limit', '-e foo', LEADING_DASH],
  ['job_tags', '-e foo', LEADING_DASH],
  ['job_tags', '@/etc/passwd', NAMES_A_FILE],
  ['skip_tags', '--extra-vars=@/etc/passwd', LEADING_DASH],
  ['skip_tags', 'a,@b', NAMES_A_FILE],
];

describe('schedules and workflow nodes refuse limits and tags a launch would refuse', () => {
  let t: TestApp;
  let template: any;
  let workflow: number;
  let schedule: number;
  let node: number;
  let operator: User;
  let adminB: User;

  const count = async (table: string, where = 'true') => (await t.db.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`))[0].n as number;

  before(async () => {
    t = await createTestApp();
    const asks = { ask_limit_on_launch: true, ask_tags_on_launch: true, ask_skip_tags_on_launch: true };
    const made = await scheduledTemplate(t, asks);
    template = made.template;
    workflow = (await t.post('/api/v2/workflow_job_templates/', { name: 'Saved prompts', organization: made.org })).body.id;
    // An operator of the organization who may run the template and administer the workflow.
    operator = await newUser(t);
    await grant(t, operator, `/api/v2/job_templates/${template.id}/`, 'execute_role');
    await grant(t, operator, `/api/v2/workflow_job_templates/${workflow}/`, 'admin_role');
    adminB = await newUser(t);
    const orgB = (await t.post('/api/v2/organizations/', { name: 'Other org' })).body.id;
    await grant(t, adminB, `/api/v2/organizations/${orgB}/`, 'admin_role');
    const created = await t.post('/api/v2/schedules/', { name: 'Fine', unified_job_template: template.id, rrule: rruleIn(3600), limit: 'web', job_tags: 'a,b' }, { as: operator });
    assert.equal(created.status, 201, created.text);
    schedule = created.body.id;
    const madeNode = await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: workflow, unified_job_template: template.id, limit: 'web' }, { as: operator });
    assert.equal(madeNode.status, 201, madeNode.text);
    node = madeNode.body.id;
  });
  after(() => t.close());

  for (const [field, value, problem] of HOSTILE) {
    it(`refuses ${field} ${JSON.stringify(value)} on a schedule's POST and PATCH, naming the field, storing nothing`, async () => {
      for (const who of [undefined, operator]) {
        const before = await count('schedules');
        const posted = await t.post('/api/v2/schedules/', { name: `bad ${field}`, unified_job_template: template.id, rrule: rruleIn(3600), [field]: value }, { as: who });
        assert.equal(posted.status, 400, posted.text);
        assert.deepEqual(posted.body, { [field]: [problem] });
        const related = await t.post(`/api/v2/job_templates/${template.id}/schedules/`, { name: `bad ${field} 2`, rrule: rruleIn(3600), [field]: value }, { as: who });
        assert.equal(related.status, 400, related.text);
        assert.equal(await count('schedules'), before);
        const patched = await t.patch(`/api/v2/schedules/${schedule}/`, { [field]: value }, { as: who });
        assert.deepEqual([patched.status, patched.body], [400, { [field]: [problem] }]);
        const [stored] = await t.db.query(`SELECT "${field}" AS v FROM schedules WHERE id = $1`, [schedule]);
        assert.notEqual(stored.v, value);
      }
      // Another organization's admin cannot reach the template at all.
      const foreign = await t.post('/api/v2/schedules/', { name: 'foreign', unified_job_template: template.id, rrule: rruleIn(3600), [field]: value }, { as: adminB });
      assert.ok([400, 403].includes(foreign.status), foreign.text);
      assert.ok([403, 404].includes((await t.patch(`/api/v2/schedules/${schedule}/`, { [field]: value }, { as: adminB })).status));
    });

    it(`refuses ${field} ${JSON.stringify(value)} on a workflow node's POST and PATCH, naming the field, storing nothing`, async () => {
      for (const who of [undefined, operator]) {
        const before = await count('workflow_job_template_nodes');
        const posted = await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: workflow, unified_job_template: template.id, [field]: value }, { as: who });
        assert.deepEqual([posted.status, posted.body], [400, { [field]: [problem] }]);
        const child = await t.post(`/api/v2/workflow_job_template_nodes/${node}/success_nodes/`, { unified_job_template: template.id, [field]: value }, { as: who });
        assert.equal(child.status, 400, child.text);
        assert.equal(await count('workflow_job_template_nodes'), before);
        const patched = await t.patch(`/api/v2/workflow_job_template_nodes/${node}/`, { [field]: value }, { as: who });
        assert.deepEqual([patched.status, patched.body], [400, { [field]: [problem] }]);
        const [stored] = await t.db.query(`SELECT "${field}" AS v FROM workflow_job_template_nodes WHERE id = $1`, [node]);
        assert.notEqual(stored.v, value);
      }
      assert.ok([403, 404].includes((await t.patch(`/api/v2/workflow_job_template_nodes/${node}/`, { [field]: value }, { as: adminB })).status));
    });
  }
});
