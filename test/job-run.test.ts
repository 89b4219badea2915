import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newInventory, newOrg, newProject, type TestApp } from './helpers/app.ts';
import { eventually, runDirectories, waitForRun } from './helpers/jobs.ts';
import { wakeDispatchers } from '../src/runs/lifecycle.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const HELLO = `- hosts: all
  gather_facts: false
  tasks:
    - name: greet
      debug: msg="hello {{ inventory_hostname }} {{ greeting | default('none') }}"
    - name: change
      command: /bin/true
      changed_when: true
      tags: [changer]
`;
const SLOW = `- hosts: all
  gather_facts: false
  tasks:
    - name: wait
      pause: seconds=60
`;
const FACTS = `- hosts: all
  gather_facts: false
  tasks:
    - name: remember
      set_fact:
        drift_marker: "{{ (previous_marker | default(0) | int) + 1 }}"
        cacheable: true
    - name: recall
      debug: msg="cached {{ ansible_facts.seen_before | default('never') }}"
`;
const FAIL_ONE = `- hosts: all
  gather_facts: false
  tasks:
    - name: fail on h2
      fail: msg=boom
      when: inventory_hostname == 'h2'
    - name: tolerated
      fail: msg=ignored
      ignore_errors: true
      when: inventory_hostname == 'h1'
`;

describe('running playbooks with ansible-runner', () => {
  let t: TestApp;
  let orgId: number;
  let projectId: number;
  let inventoryId: number;

  before(async () => {
    t = await createTestApp();
    orgId = (await newOrg(t, { name: 'Ops' })).id;
    projectId = (await newProject(t, orgId, { name: 'Plays', files: { 'hello.yml': HELLO, 'fail.yml': FAIL_ONE, 'slow.yml': SLOW, 'facts.yml': FACTS } })).id;
    inventoryId = (await newInventory(t, orgId, { name: 'Local', hosts: ['h1', 'h2'] })).id;
  });
  after(async () => {
    await t.close();
  });

  const launch = async (fields: Record<string, unknown>) => {
    const columns = { kind: 'job', name: 'test job', status: 'pending', project_id: projectId, inventory_id: inventoryId, organization_id: orgId, job_type: 'run', ...fields };
    const names = Object.keys(columns);
    const [row] = await t.db.query<AnyRow>(
      `INSERT INTO unified_jobs (${names.map((n) => `"${n}"`).join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id`,
      Object.values(columns),
    );
    await wakeDispatchers(t.db);
    return fields.status === undefined ? waitForRun(t, `/api/v2/jobs/${row.id}/`, 120_000) : { id: row.id, url: `/api/v2/jobs/${row.id}/` };
  };
  const events = (jobId: number) => t.db.query<AnyRow>('SELECT * FROM unified_job_events WHERE unified_job_id = $1 ORDER BY counter', [jobId]);

  it('a successful run stores its events in order, host summaries and the hosts last job', async () => {
    const job = await launch({ playbook: 'hello.yml', extra_vars: 'greeting: hi' });
    assert.equal(job.status, 'successful', job.job_explanation);
    const rows = await events(job.id);
    assert.equal(rows[0].event, 'verbose');
    assert.match(rows[0].stdout, /^Execution environment/);
    const names = rows.map((r) => r.event);
    assert.ok(names.includes('playbook_on_start') && names.includes('playbook_on_stats'));
    assert.deepEqual(rows.map((r) => r.counter), rows.map((_, i) => i + 1), 'counters are dense');
    for (let i = 1; i < rows.length; i++) assert.ok(rows[i].start_line >= rows[i - 1].end_line - 0, 'lines follow each other');
    const ok = rows.filter((r) => r.event === 'runner_on_ok' && r.task === 'greet');
    assert.deepEqual(ok.map((r) => r.host_name).sort(), ['h1', 'h2']);
    assert.ok(ok.every((r) => r.host_id !== null));
    assert.ok(rows.some((r) => r.task === 'change' && r.changed));
    assert.equal(job.type, 'job');
    assert.equal(job.event_processing_finished, true);
    const listed = (await t.get(`/api/v2/jobs/${job.id}/job_events/?event=runner_on_ok&task=greet`)).body;
    assert.equal(listed.count, 2);
    assert.equal(listed.results[0].type, 'job_event');
    assert.equal(listed.results[0].job, job.id);
    const txt = (await t.get(`/api/v2/jobs/${job.id}/stdout/?format=txt`)).text;
    assert.match(txt, /TASK \[greet\]/);
    assert.match(txt, /PLAY RECAP/);
    assert.ok(!txt.includes('\r'), 'plain line ends');
    const perHost = (await t.get(`/api/v2/jobs/${job.id}/job_host_summaries/`)).body;
    assert.deepEqual(perHost.results.map((r: any) => [r.host_name, r.ok, r.failed]), [['h1', 2, false], ['h2', 2, false]]);
    assert.equal((await t.get(`/api/v2/unified_jobs/?type=job&id=${job.id}`)).body.results[0].url, `/api/v2/jobs/${job.id}/`);
    const summaries = await t.db.query<AnyRow>('SELECT host_name, ok, changed, failed FROM job_host_summaries WHERE job_id = $1 ORDER BY host_name', [job.id]);
    assert.deepEqual(summaries, [{ host_name: 'h1', ok: 2, changed: 1, failed: false }, { host_name: 'h2', ok: 2, changed: 1, failed: false }]);
    const host = (await t.get(`/api/v2/hosts/?name=h1&inventory=${inventoryId}`)).body.results[0];
    assert.equal(host.last_job, job.id);
    assert.ok(rows.some((r) => /hello h1 hi/.test(r.stdout)), 'extra vars reached the playbook');
  });

  it('a failing host fails the job; ignore_errors does not; host and inventory failures are recorded', async () => {
    const job = await launch({ playbook: 'fail.yml' });
    assert.equal(job.status, 'failed');
    const rows = await events(job.id);
    const failed = rows.filter((r) => r.failed).map((r) => r.host_name);
    assert.deepEqual(failed, ['h2']);
    assert.ok(rows.some((r) => r.event === 'runner_on_failed' && r.host_name === 'h1' && !r.failed), 'ignored errors are not failures');
    const inventory = (await t.get(`/api/v2/inventories/${inventoryId}/`)).body;
    assert.equal(inventory.hosts_with_active_failures, 1);
    assert.equal(inventory.has_active_failures, true);
  });

  it('limit, tags and check mode reach ansible-playbook', async () => {
    const job = await launch({ playbook: 'hello.yml', limit: 'h1', job_tags: 'changer', job_type: 'check' });
    assert.equal(job.status, 'successful', job.job_explanation);
    const rows = await events(job.id);
    const hosts = new Set(rows.filter((r) => r.host_name).map((r) => r.host_name));
    assert.deepEqual([...hosts], ['h1']);
    assert.ok(!rows.some((r) => r.task === 'greet'), 'untagged tasks skipped');
  });

  it('cancel stops a running playbook; its private files are gone', async () => {
    const started = await launch({ playbook: 'slow.yml', status: 'pending' });
    await eventually(async () => (await events(started.id)).some((r) => r.task === 'wait'));
    assert.equal((await t.post(`${started.url}cancel/`)).status, 202);
    const done = await waitForRun(t, started.url);
    assert.equal(done.status, 'canceled');
    assert.deepEqual(await runDirectories(t, started.id), []);
  });

  it('a cancel whose notice was lost still stops the run: the node reads the flag', async () => {
    const started = await launch({ playbook: 'slow.yml', status: 'pending' });
    await eventually(async () => (await events(started.id)).some((r) => r.task === 'wait'));
    // As if the cancel's NOTIFY never arrived: the flag alone, set the way the cancel route sets it.
    await t.db.query<AnyRow>('UPDATE unified_jobs SET cancel_flag = true WHERE id = $1', [started.id]);
    const done = await waitForRun(t, started.url);
    assert.equal(done.status, 'canceled', done.job_explanation);
  });

  it('a playbook running past its timeout fails with "Job terminated due to timeout"', async () => {
    const job = await launch({ playbook: 'slow.yml', timeout: 2 });
    assert.equal(job.status, 'failed');
    assert.equal(job.job_explanation, 'Job terminated due to timeout');
  });

  it('with use_fact_cache, facts set by the run are stored on the hosts and given to the next run', async () => {
    const h1 = (await t.get(`/api/v2/hosts/?name=h1&inventory=${inventoryId}`)).body.results[0];
    await t.db.query<AnyRow>(`UPDATE hosts SET ansible_facts = '{"seen_before": "yes"}' WHERE id = $1`, [h1.id]);
    const job = await launch({ playbook: 'facts.yml', use_fact_cache: true });
    assert.equal(job.status, 'successful', job.job_explanation);
    const facts = (await t.get(`/api/v2/hosts/${h1.id}/ansible_facts/`)).body;
    assert.equal(facts.drift_marker, '1');
    assert.equal(facts.seen_before, 'yes', 'facts loaded before the run are kept');
    assert.ok((await t.get(`/api/v2/hosts/${h1.id}/`)).body.ansible_facts_modified);
    assert.ok((await events(job.id)).some((r) => /cached yes/.test(r.stdout) && r.host_name === 'h1'));
    const without = await launch({ playbook: 'facts.yml' });
    assert.ok((await events(without.id)).some((r) => /cached never/.test(r.stdout)), 'no cache without use_fact_cache');
  });
});
