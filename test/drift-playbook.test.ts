import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { newOrg } from './helpers/factories.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { eventually, firstProjectUpdate, waitForRun } from './helpers/jobs.ts';

// Facts a playbook caches, from the launch's extra variables: what changes between runs.
const FACTS = `- hosts: all
  gather_facts: false
  tasks:
    - name: record the state
      set_fact:
        cacheable: true
        app_version: "{{ version }}"
        pip_packages: "{{ pips }}"
        listening_ports: "{{ ports }}"
        deploy_marker: "{{ marker | default('none') }}"
`;

describe('drift from real playbook runs with fact caching', () => {
  let t: TestApp;
  let repo: GitRepository;
  let template: number;
  let web: number;
  let db1: number;

  before(async () => {
    t = await createTestApp();
    repo = await makeRepository({ 'facts.yml': FACTS });
    const org = (await newOrg(t, { name: 'Plays' })).id;
    const project = (await t.post('/api/v2/projects/', { name: 'Facts', organization: org, scm_type: 'git', scm_url: `file://${repo.bare}` })).body.id;
    await firstProjectUpdate(t, project);
    const inventory = (await t.post('/api/v2/inventories/', { name: 'Local', organization: org, variables: 'ansible_connection: local\nansible_python_interpreter: /usr/bin/python3' })).body.id;
    web = (await t.post('/api/v2/hosts/', { name: 'web', inventory })).body.id;
    db1 = (await t.post('/api/v2/hosts/', { name: 'db1', inventory })).body.id;
    const res = await t.post('/api/v2/job_templates/', { name: 'state', project, inventory, playbook: 'facts.yml', use_fact_cache: true, ask_variables_on_launch: true });
    assert.equal(res.status, 201, res.text);
    template = res.body.id;
  });
  after(async () => {
    await t.close();
    await repo.remove();
  });

  const run = async (vars: Record<string, unknown>) => {
    const launched = await t.post(`/api/v2/job_templates/${template}/launch/`, { extra_vars: vars });
    assert.equal(launched.status, 201, launched.text);
    const job = await waitForRun(t, `/api/v2/jobs/${launched.body.id}/`);
    assert.equal(job.status, 'successful', job.job_explanation);
    return job;
  };
  const snapshotsOfJob = (jobId: number, count: number) =>
    eventually(async () => {
      const list = (await t.get(`/api/v2/fact_snapshots/?job=${jobId}`)).body;
      return list.count === count && list.results;
    }, 30_000, `${count} snapshots of job ${jobId}`);

  it('snapshots after the first run, records what the second changed, and nothing when a run changes nothing', async () => {
    const first = await run({ version: '1.0', pips: ['requests==2.31'], ports: [22, 80] });
    await snapshotsOfJob(first.id, 2);
    assert.equal((await t.get('/api/v2/drift_detections/')).body.count, 0, 'first snapshots are baselines');

    const second = await run({ version: '1.1', pips: ['requests==2.32', 'urllib3==2.2'], ports: [22, 80] });
    await snapshotsOfJob(second.id, 2);
    const drift = await eventually(async () => {
      const list = (await t.get(`/api/v2/drift_detections/?job=${second.id}&order_by=fact_path`)).body;
      return list.count === 4 && list.results;
    }, 30_000, 'drift of the second run');
    const ofWeb = drift.filter((d: any) => d.host === web);
    assert.deepEqual(ofWeb.map((d: any) => [d.fact_path, d.category, d.severity, d.summary]), [
      ['app_version', 'other', 'low', '1.0 -> 1.1'],
      ['pip_packages', 'packages', 'medium', '+2, -1 items'],
    ]);
    assert.ok(drift.some((d: any) => d.host === db1));

    const third = await run({ version: '1.1', pips: ['requests==2.32', 'urllib3==2.2'], ports: [22, 80] });
    // The capture of the third run is done once the queue is empty: no new snapshot, no drift.
    await eventually(async () => (await t.db.query('SELECT 1 FROM fact_capture_queue')).length === 0, 30_000, 'capture of the third run');
    assert.equal((await t.get(`/api/v2/fact_snapshots/?job=${third.id}`)).body.count, 0);
    assert.equal((await t.get(`/api/v2/drift_detections/?job=${third.id}`)).body.count, 0);

    const fourth = await run({ version: '1.1', pips: ['requests==2.32', 'urllib3==2.2'], ports: [22, 80, 443] });
    const ports = await eventually(async () => {
      const list = (await t.get(`/api/v2/drift_detections/?job=${fourth.id}&host=${web}`)).body;
      return list.count === 1 && list.results[0];
    }, 30_000, 'drift of the fourth run');
    assert.deepEqual([ports.fact_path, ports.category, ports.severity, ports.summary], ['listening_ports', 'network', 'high', '+1, -0 items']);
    assert.deepEqual(ports.detail, { before: [22, 80], after: [22, 80, 443], diff_type: 'changed' });
    const timeline = (await t.get(`/api/v2/hosts/${web}/drift/`)).body;
    assert.equal(timeline.count, 3);
    assert.equal(timeline.results[0].id, ports.id, 'newest first');
  });

  it('stores extra variables that look like templates as data', async () => {
    const job = await run({ version: '{{ lookup("pipe", "id") }}', pips: [], ports: [], marker: '{% raw %}x' });
    const [snapshot] = await snapshotsOfJob(job.id, 2);
    const facts = (await t.get(`/api/v2/fact_snapshots/${snapshot.id}/`)).body.facts;
    assert.equal(facts.app_version, '{{ lookup("pipe", "id") }}');
  });
});
