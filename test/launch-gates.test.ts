import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newInventory, newJobTemplate, newOrg, newProject, type TestApp } from './helpers/app.ts';
import { waitForRun } from './helpers/jobs.ts';
import type { Gate, GateInput } from '../src/runs/gates.ts';

/**
 * The launch pipeline: every launch path (template launch, relaunch, ad hoc command, project and
 * inventory source update/) passes the composition's gates in order; a denial leaves no run, a
 * warning is kept with the run.
 */
describe('launch gates', () => {
  let t: TestApp;
  const seen: GateInput[] = [];
  let mode: 'allow' | 'warn' | 'deny' = 'allow';
  const recorder: Gate = { name: 'recorder', check: async (_tx, launch) => (seen.push(launch), { decision: 'allow' }) };
  const switchable: Gate = {
    name: 'switchable',
    check: async () =>
      mode === 'deny' ? { decision: 'deny', status: 403, message: 'Denied by the test gate.' }
        : mode === 'warn' ? { decision: 'warn', message: 'Watch out: test gate.' } : { decision: 'allow' },
  };
  let denials = 0;
  // Last in the pipeline: never asked about a launch an earlier gate denied.
  const never: Gate = { name: 'after the others', check: async () => (mode === 'deny' && denials++, { decision: 'allow' }) };
  let org: number;
  let inventory: number;
  let template: number;
  let project: number;

  before(async () => {
    t = await createTestApp({}, { gates: [recorder, switchable, never] });
    org = (await newOrg(t, { name: 'gated' })).id;
    project = (await newProject(t, org, { name: 'gated plays', files: { 'site.yml': '- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: msg=hi\n' } })).id;
    inventory = (await newInventory(t, org, { name: 'gated inv', hosts: ['h1'] })).id;
    template = (await newJobTemplate(t, { name: 'gated jt', project, inventory, playbook: 'site.yml' })).id;
  });
  after(async () => {
    await t?.close();
  });

  const runCount = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM unified_jobs'))[0].n;

  it('a denied launch answers the gate status and message and leaves no run and no activity entry, and the next gates are not asked', async () => {
    mode = 'deny';
    try {
      const runsBefore = await runCount();
      const activity = (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM activity_stream WHERE object1 = 'job'`))[0].n;
      const res = await t.post(`/api/v2/job_templates/${template}/launch/`, {});
      assert.equal(res.status, 403, res.text);
      assert.deepEqual(res.body, { detail: 'Denied by the test gate.' });
      assert.equal(await runCount(), runsBefore);
      assert.equal((await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM activity_stream WHERE object1 = 'job'`))[0].n, activity);
      const template_ = (await t.get(`/api/v2/job_templates/${template}/`)).body;
      assert.equal(template_.summary_fields.current_job, undefined);
      const adhoc = await t.post('/api/v2/ad_hoc_commands/', { inventory, module_name: 'ping' });
      assert.equal(adhoc.status, 403, adhoc.text);
      assert.equal(await runCount(), runsBefore);
      assert.equal(denials, 0);
    } finally {
      mode = 'allow';
    }
  });

  it('a warning keeps the run going with the message in its explanation', async () => {
    mode = 'warn';
    try {
      const res = await t.post(`/api/v2/job_templates/${template}/launch/`, {});
      assert.equal(res.status, 201, res.text);
      assert.match(res.body.job_explanation, /Watch out: test gate\./);
      const job = await waitForRun(t, `/api/v2/jobs/${res.body.job}/`, 120_000);
      assert.equal(job.status, 'successful');
    } finally {
      mode = 'allow';
    }
  });

  it('every launch path passes the gates with what it launches', async () => {
    seen.length = 0;
    const launched = await t.post(`/api/v2/job_templates/${template}/launch/`, {});
    assert.equal(launched.status, 201, launched.text);
    await waitForRun(t, `/api/v2/jobs/${launched.body.job}/`, 120_000);
    const relaunched = await t.post(`/api/v2/jobs/${launched.body.job}/relaunch/`, {});
    assert.equal(relaunched.status, 201, relaunched.text);
    const adhoc = await t.post(`/api/v2/inventories/${inventory}/ad_hoc_commands/`, { module_name: 'ping' });
    assert.equal(adhoc.status, 201, adhoc.text);
    const update = await t.post(`/api/v2/projects/${project}/update/`, {});
    assert.equal(update.status, 202, update.text);
    const source = await t.post('/api/v2/inventory_sources/', { name: 'gated source', inventory, source: 'file', source_vars: { script: '#!/bin/sh\necho "{}"\n' } });
    assert.equal(source.status, 201, source.text);
    const sourceUpdate = await t.post(`/api/v2/inventory_sources/${source.body.id}/update/`, {});
    assert.equal(sourceUpdate.status, 202, sourceUpdate.text);
    assert.deepEqual(
      seen.map((s) => [s.kind, s.launchType, s.template?.id ?? null, s.run.status]),
      [
        ['job', 'manual', template, 'pending'],
        ['job', 'relaunch', template, 'pending'],
        ['ad_hoc_command', 'manual', null, 'pending'],
        ['project_update', 'manual', project, 'pending'],
        ['inventory_update', 'manual', source.body.id, 'pending'],
      ],
    );
    assert.equal(seen[0].ctx.user?.username, 'admin');
  });
});
