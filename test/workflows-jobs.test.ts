// Workflows of real playbook runs: set_stats artifacts flowing to the next job, and job slicing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newInventory, newJobTemplate, newOrg, newProject, type TestApp } from './helpers/app.ts';
import { waitForRun } from './helpers/jobs.ts';
import { finished, jobNodes, launchWorkflow, makeWorkflow } from './helpers/workflows.ts';

const STATS = `- hosts: all
  gather_facts: false
  tasks:
    - set_stats:
        aggregate: false
        data:
          handed: over
          count: 3
`;
const SHOW = `- hosts: all
  gather_facts: false
  tasks:
    - debug: msg="got {{ handed | default('nothing') }} {{ colour | default('none') }}"
`;
const FAIL = `- hosts: all
  gather_facts: false
  tasks:
    - fail: msg=boom
`;
const HOSTS = `- hosts: all
  gather_facts: false
  tasks:
    - debug: msg="on {{ inventory_hostname }}"
`;

describe('workflows of playbook runs', () => {
  let t: TestApp;
  let org: number;
  let inventory: number;
  const templates: Record<string, number> = {};

  before(async () => {
    t = await createTestApp();
    org = (await newOrg(t, { name: 'Plays' })).id;
    const project = await newProject(t, org, { name: 'plays', files: { 'stats.yml': STATS, 'show.yml': SHOW, 'fail.yml': FAIL, 'hosts.yml': HOSTS } });
    inventory = (await newInventory(t, org, { name: 'local', hosts: ['h1', 'h2', 'h3', 'h4', 'h5'] })).id;
    for (const [name, playbook, extra] of [['stats', 'stats.yml', {}], ['show', 'show.yml', {}], ['fail', 'fail.yml', {}], ['sliced', 'hosts.yml', { job_slice_count: 3 }]] as const) {
      templates[name] = (await newJobTemplate(t, { name, project, inventory, playbook, ...extra })).id;
    }
  });
  after(async () => {
    await t.close();
  });

  it('passes set_stats artifacts of a job to the next one as extra vars, under the workflow extra vars', async () => {
    const wf = await makeWorkflow(t, org, 'artifacts', { first: { template: templates.stats }, second: { template: templates.show } }, [['first', 'success', 'second']],
      { extra_vars: JSON.stringify({ colour: 'green' }) });
    const wj = await launchWorkflow(t, wf.id);
    const done = await finished(t, wj);
    assert.equal(done.status, 'successful', done.job_explanation);
    const nodes = await jobNodes(t, wj);
    assert.deepEqual(nodes.second.ancestor_artifacts, { handed: 'over', count: 3 });
    const first = (await t.get(`/api/v2/jobs/${nodes.first.job}/`)).body;
    assert.deepEqual(first.artifacts, { handed: 'over', count: 3 });
    assert.equal(first.launch_type, 'workflow');
    const second = (await t.get(`/api/v2/jobs/${nodes.second.job}/`)).body;
    assert.deepEqual(JSON.parse(second.extra_vars), { handed: 'over', count: 3, colour: 'green' });
    const stdout = await t.get(`/api/v2/jobs/${nodes.second.job}/stdout/?format=txt`);
    assert.match(stdout.text, /got over green/);
    assert.deepEqual((await t.get(`/api/v2/workflow_jobs/${wj}/`)).body.summary_fields.unified_job_template?.id ?? wf.id, wf.id);
  });

  it('fails a workflow whose job failed without a failure path, and runs the failure path of one that has it', async () => {
    const wf = await makeWorkflow(t, org, 'job failure', { broken: { template: templates.fail }, rescue: { template: templates.show } }, [['broken', 'failure', 'rescue']]);
    const wj = await launchWorkflow(t, wf.id);
    assert.equal((await finished(t, wj)).status, 'successful');
    const nodes = await jobNodes(t, wj);
    assert.equal(nodes.broken.summary_fields.job.status, 'failed');
    assert.equal(nodes.rescue.summary_fields.job.status, 'successful');
  });

  it('slices a job over disjoint host sets under one workflow job', async () => {
    const res = await t.post(`/api/v2/job_templates/${templates.sliced}/launch/`, {});
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.type, 'workflow_job');
    assert.equal(res.body.is_sliced_job, true);
    assert.equal(res.body.job_template, templates.sliced);
    assert.equal(res.body.job, res.body.id);
    const done = await finished(t, res.body.id);
    assert.equal(done.status, 'successful', done.job_explanation);
    const nodes = Object.values(await jobNodes(t, res.body.id));
    assert.equal(nodes.length, 3);
    const seen: string[][] = [];
    for (const node of nodes) {
      const job = await waitForRun(t, `/api/v2/jobs/${node.job}/`);
      assert.equal(job.status, 'successful');
      assert.equal(job.job_slice_count, 3);
      const summaries = (await t.get(`/api/v2/jobs/${node.job}/job_host_summaries/`)).body.results.map((s: any) => s.summary_fields.host?.name ?? s.host_name);
      seen[job.job_slice_number - 1] = summaries.sort();
    }
    assert.deepEqual(seen, [['h1', 'h4'], ['h2', 'h5'], ['h3']]);
  });
});
