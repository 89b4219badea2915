// Job events, run fields and unified lists as AWX 24.6.1 serves them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, grant, newOrg, newUser, type TestApp, type User } from './helpers/app.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { firstProjectUpdate, waitForRun } from './helpers/jobs.ts';
import { wakeDispatchers } from '../src/runs/lifecycle.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const PLAYS = `- name: first
  hosts: all
  gather_facts: false
  tasks:
    - name: greet
      debug: msg="hello"
- name: second
  hosts: h1
  gather_facts: false
  tasks:
    - name: change
      command: /bin/true
      changed_when: true
    - name: look
      debug: msg="{{ lookup('env', 'PLAIN_SETTING') | length }}"
`;
const SECRET = 'n0t-f0r-y0ur-eyes';

describe('AWX job events, run fields and unified lists', () => {
  let t: TestApp;
  let repo: GitRepository;
  let orgId: number;
  let projectId: number;
  let inventoryId: number;
  let templateId: number;
  let job: any;
  let reader: User;
  let plain: User;
  let otherAdmin: User;

  const insertRun = async (fields: Record<string, unknown>) => {
    const names = Object.keys(fields);
    const [row] = await t.db.query<AnyRow>(
      `INSERT INTO unified_jobs (${names.map((n) => `"${n}"`).join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id`,
      Object.values(fields),
    );
    return row.id as number;
  };
  /** Events inserted as stored: [event, uuid, parent_uuid, extra columns]. */
  const insertEvents = async (runId: number, events: [string, string, string, Record<string, unknown>?][]) => {
    let line = 0;
    for (const [i, [event, uuid, parent, extra]] of events.entries()) {
      const columns = { unified_job_id: runId, counter: i + 1, event, uuid, parent_uuid: parent, stdout: `line ${i + 1}`, start_line: line, end_line: ++line, ...extra };
      const names = Object.keys(columns);
      await t.db.query<AnyRow>(
        `INSERT INTO unified_job_events (${names.join(', ')}) VALUES (${names.map((_, n) => `$${n + 1}`).join(', ')})`,
        Object.values(columns).map((v) => (v && typeof v === 'object' ? JSON.stringify(v) : v)),
      );
    }
    return (await t.db.query<AnyRow>('SELECT id, counter FROM unified_job_events WHERE unified_job_id = $1 ORDER BY counter', [runId])).map((r) => Number(r.id));
  };
  const syntheticJob = (extra: Record<string, unknown> = {}) =>
    insertRun({ kind: 'job', name: 'synthetic', status: 'successful', job_template_id: templateId, unified_job_template_id: templateId, project_id: projectId,
      inventory_id: inventoryId, organization_id: orgId, job_type: 'run', playbook: 'site.yml', event_processing_finished: true, ...extra });

  before(async () => {
    t = await createTestApp();
    repo = await makeRepository({ 'site.yml': PLAYS });
    orgId = (await newOrg(t, { name: 'Events' })).id;
    projectId = (await t.post('/api/v2/projects/', { name: 'Plays', organization: orgId, scm_type: 'git', scm_url: `file://${repo.bare}` })).body.id;
    await firstProjectUpdate(t, projectId);
    inventoryId = (await t.post('/api/v2/inventories/', { name: 'Local', organization: orgId, variables: 'ansible_connection: local\nansible_python_interpreter: /usr/bin/python3' })).body.id;
    for (const name of ['h1', 'h2']) assert.equal((await t.post('/api/v2/hosts/', { name, inventory: inventoryId })).status, 201);
    const template = await t.post('/api/v2/job_templates/', { name: 'Plays', project: projectId, inventory: inventoryId, playbook: 'site.yml' });
    assert.equal(template.status, 201, template.text);
    templateId = template.body.id;

    const type = await t.post('/api/v2/credential_types/', {
      name: 'Service', kind: 'cloud',
      inputs: { fields: [{ id: 'pw', label: 'Password', secret: true }] },
      injectors: { env: { SERVICE_PASSWORD: '{{ pw }}', PLAIN_SETTING: 'x-{{ pw }}' } },
    });
    assert.equal(type.status, 201, type.text);
    const credential = await t.post('/api/v2/credentials/', { name: 'svc', organization: orgId, credential_type: type.body.id, inputs: { pw: SECRET } });
    assert.equal(credential.status, 201, credential.text);

    const id = await insertRun({ kind: 'job', name: 'Plays', status: 'pending', job_template_id: templateId, unified_job_template_id: templateId, project_id: projectId,
      inventory_id: inventoryId, organization_id: orgId, job_type: 'run', playbook: 'site.yml' });
    await t.db.query<AnyRow>('INSERT INTO unified_job_credentials (unified_job_id, credential_id) VALUES ($1, $2)', [id, credential.body.id]);
    await wakeDispatchers(t.db);
    job = await waitForRun(t, `/api/v2/jobs/${id}/`, 120_000);
    assert.equal(job.status, 'successful', job.job_explanation);

    reader = await newUser(t);
    await grant(t, reader, `/api/v2/job_templates/${templateId}/`, 'read_role');
    plain = await newUser(t);
    const otherOrg = await newOrg(t, { name: 'Elsewhere' });
    otherAdmin = await newUser(t);
    await grant(t, otherAdmin, otherOrg, 'admin_role');
  });
  after(async () => {
    await t.close();
    await repo.remove();
  });

  const eventsOf = async (id: number, query = '') => (await t.get(`/api/v2/jobs/${id}/job_events/?page_size=200${query}`)).body;

  it('lists job events with url, related, summary_fields, AWX labels and levels', async () => {
    const list = await eventsOf(job.id);
    const byEvent = (name: string) => list.results.filter((e: any) => e.event === name);
    const start = byEvent('playbook_on_start')[0];
    assert.equal(start.type, 'job_event');
    assert.equal(start.url, `/api/v2/job_events/${start.id}/`);
    assert.deepEqual(start.related, { job: `/api/v2/jobs/${job.id}/`, children: `/api/v2/job_events/${start.id}/children/` });
    assert.equal(start.event_display, 'Playbook Started');
    assert.equal(start.event_level, 0);
    assert.deepEqual(byEvent('playbook_on_play_start').map((e: any) => [e.event_display, e.event_level]), [['Play Started (first)', 1], ['Play Started (second)', 1]]);
    assert.deepEqual(byEvent('playbook_on_task_start').map((e: any) => [e.event_display, e.event_level]), [['Task Started (greet)', 2], ['Task Started (change)', 2], ['Task Started (look)', 2]]);
    assert.deepEqual(byEvent('playbook_on_stats').map((e: any) => [e.event_display, e.event_level]), [['Playbook Complete', 1]]);
    const ok = byEvent('runner_on_ok').find((e: any) => e.host_name === 'h1');
    assert.equal(ok.event_display, 'Host OK');
    assert.equal(ok.event_level, 3);
    const host = (await t.get(`/api/v2/hosts/?name=h1&inventory=${inventoryId}`)).body.results[0];
    assert.equal(ok.host, host.id);
    assert.equal(ok.related.host, `/api/v2/hosts/${host.id}/`);
    assert.deepEqual(ok.summary_fields.host, { id: host.id, name: 'h1', description: '' });
    assert.deepEqual(ok.summary_fields.role, {});
    const summaryJob = ok.summary_fields.job;
    assert.deepEqual([summaryJob.id, summaryJob.name, summaryJob.status, summaryJob.failed, summaryJob.type, summaryJob.job_template_id, summaryJob.job_template_name],
      [job.id, 'Plays', 'successful', false, 'job', templateId, 'Plays']);
    assert.equal(typeof summaryJob.elapsed, 'number');
    assert.deepEqual(Object.keys(ok).slice(0, 8), ['id', 'type', 'url', 'related', 'summary_fields', 'created', 'modified', 'job']);
    for (const field of ['event', 'counter', 'event_display', 'event_data', 'event_level', 'failed', 'changed', 'uuid', 'parent_uuid', 'host', 'host_name',
      'playbook', 'play', 'task', 'role', 'stdout', 'start_line', 'end_line', 'verbosity']) assert.ok(field in ok, field);
    assert.equal((await eventsOf(job.id, `&host=${host.id}`)).results.every((e: any) => e.host === host.id), true);
    assert.equal((await eventsOf(job.id, '&event=playbook_on_task_start')).count, 3);
  });

  it('shows one event and its children; children_summary counts descendants', async () => {
    const list = await eventsOf(job.id);
    const play = list.results.find((e: any) => e.event === 'playbook_on_play_start' && e.play === 'second');
    const detail = await t.get(`/api/v2/job_events/${play.id}/`);
    assert.equal(detail.status, 200);
    assert.deepEqual(detail.body, play);
    const children = (await t.get(`/api/v2/job_events/${play.id}/children/`)).body;
    assert.deepEqual(children.results.map((e: any) => e.event_display), ['Task Started (change)', 'Task Started (look)']);
    assert.ok(children.results.every((e: any) => e.parent_uuid === play.uuid));

    const summary = (await t.get(`/api/v2/jobs/${job.id}/job_events/children_summary/`)).body;
    assert.equal(summary.event_processing_finished, true);
    assert.equal(summary.is_tree, true);
    const start = list.results.find((e: any) => e.event === 'playbook_on_start');
    const underPlay = list.results.filter((e: any) => e.parent_uuid === play.uuid || children.results.some((c: any) => c.uuid === e.parent_uuid)).length;
    assert.equal(summary.children_summary[play.counter].numChildren, underPlay);
    assert.equal(summary.children_summary[play.counter].rowNumber, list.results.findIndex((e: any) => e.id === play.id));
    assert.equal(summary.children_summary[start.counter].numChildren, list.results.filter((e: any) => e.uuid && e.parent_uuid && e.event !== 'verbose').length);
  });

  it('children_summary: nothing until events are stored, meta events nested, is_tree false out of order', async () => {
    const running = await syntheticJob({ status: 'running', event_processing_finished: false });
    await insertEvents(running, [['playbook_on_start', 'p', '']]);
    assert.deepEqual((await t.get(`/api/v2/jobs/${running}/job_events/children_summary/`)).body,
      { children_summary: {}, meta_event_nested_uuid: {}, event_processing_finished: false, is_tree: true });

    const nested = await syntheticJob();
    await insertEvents(nested, [
      ['playbook_on_start', 'p', ''], ['playbook_on_play_start', 'a', 'p'], ['playbook_on_task_start', 't', 'a'],
      ['verbose', 'v', ''], ['runner_on_ok', 'r', 't'], ['playbook_on_stats', 's', 'p'],
    ]);
    const tree = (await t.get(`/api/v2/jobs/${nested}/job_events/children_summary/`)).body;
    assert.deepEqual(tree, {
      children_summary: { 1: { rowNumber: 0, numChildren: 5 }, 2: { rowNumber: 1, numChildren: 3 }, 3: { rowNumber: 2, numChildren: 2 } },
      meta_event_nested_uuid: { 4: 't' },
      event_processing_finished: true,
      is_tree: true,
    });

    const free = await syntheticJob();
    await insertEvents(free, [
      ['playbook_on_start', 'p', ''], ['playbook_on_play_start', 'a', 'p'], ['playbook_on_task_start', 't1', 'a'],
      ['playbook_on_task_start', 't2', 'a'], ['runner_on_ok', 'r', 't1'],
    ]);
    assert.equal((await t.get(`/api/v2/jobs/${free}/job_events/children_summary/`)).body.is_tree, false);
  });

  it('labels async runs and handlers as AWX; cuts long stdout in lists except playbook_on_* events', async () => {
    const id = await syntheticJob();
    const long = 'x'.repeat(3000);
    const [check, , handler, odd, , hostLong] = await insertEvents(id, [
      ['runner_on_ok', 'a', '', { event_data: { res: { ansible_job_id: '1', invocation: { module_name: 'async_status' } } } }],
      ['runner_on_failed', 'b', '', { event_data: { res: { msg: 'timed out' } } }],
      ['playbook_on_task_start', 'c', '', { task: 'restart', role: 'web', event_data: { is_conditional: true } }],
      ['something_new', 'd', ''],
      ['playbook_on_play_start', 'e', '', { stdout: long }],
      ['runner_on_ok', 'f', '', { stdout: long }],
    ]);
    const list = (await eventsOf(id)).results;
    assert.deepEqual(list.map((e: any) => e.event_display), ['Host Async Checking', 'Host Async Timeout', 'Handler Notified (web | restart)', 'something_new', 'Play Started', 'Host OK']);
    assert.equal(list.find((e: any) => e.id === odd).event_level, 0);
    assert.equal(list[4].stdout.length, 3000);
    assert.equal(list[5].stdout.length, 1024);
    assert.equal((await eventsOf(id, '&no_truncate=1')).results[5].stdout.length, 3000);
    assert.equal((await t.get(`/api/v2/job_events/${hostLong}/`)).body.stdout.length, 3000);
    assert.ok(check && handler);
  });

  it('an event is visible to whoever sees its job: 403 for a plain user and another organization\'s admin, 404 for no such event', async () => {
    const [first] = (await eventsOf(job.id)).results;
    const summary = (await t.get(`/api/v2/jobs/${job.id}/job_host_summaries/`)).body.results[0];
    const urls = [`/api/v2/job_events/${first.id}/`, `/api/v2/job_events/${first.id}/children/`, `/api/v2/jobs/${job.id}/job_events/children_summary/`,
      `/api/v2/jobs/${job.id}/job_events/`, `/api/v2/job_host_summaries/${summary.id}/`];
    for (const url of urls) {
      assert.equal((await t.get(url, { as: reader })).status, 200, url);
      for (const as of [plain, otherAdmin]) {
        const res = await t.get(url, { as });
        assert.equal(res.status, 403, `${url} ${res.text}`);
        assert.ok(!res.text.includes(first.uuid));
      }
    }
    for (const id of ['999999999', 'abc', '99999999999999999999']) assert.equal((await t.get(`/api/v2/job_events/${id}/`)).status, 404, id);
    const update = (await t.get(`/api/v2/projects/${projectId}/project_updates/`)).body.results[0];
    const [updateEvent] = (await t.get(`/api/v2/project_updates/${update.id}/events/`)).body.results;
    assert.equal((await t.get(`/api/v2/job_events/${updateEvent.id}/`)).status, 404, 'a project update event is no job event');
    assert.equal((await t.get(`/api/v2/ad_hoc_command_events/${first.id}/`)).status, 404, 'a job event is no ad hoc command event');
  });

  it('job host summaries have a detail page with the job and its template summarized', async () => {
    const [summary] = (await t.get(`/api/v2/jobs/${job.id}/job_host_summaries/`)).body.results;
    const detail = (await t.get(`/api/v2/job_host_summaries/${summary.id}/`)).body;
    assert.equal(detail.host_name, summary.host_name);
    assert.equal(detail.related.job, `/api/v2/jobs/${job.id}/`);
    assert.deepEqual([detail.summary_fields.job.job_template_id, detail.summary_fields.job.job_template_name, detail.summary_fields.job.type], [templateId, 'Plays', 'job']);
    assert.equal((await t.get('/api/v2/job_host_summaries/999999/')).status, 404);
  });

  it('a job shows host_status_counts, playbook_counts, job_args, job_cwd and job_env, never a credential secret', async () => {
    const detail = (await t.get(`/api/v2/jobs/${job.id}/`)).body;
    assert.deepEqual(detail.host_status_counts, { ok: 1, changed: 1 });
    assert.deepEqual(detail.playbook_counts, { play_count: 2, task_count: 3 });
    const args = JSON.parse(detail.job_args);
    assert.equal(args[0], 'ansible-playbook');
    assert.equal(args[args.length - 1], 'site.yml');
    assert.ok(detail.job_cwd.length > 0);
    assert.equal(detail.job_env.SERVICE_PASSWORD, '**********');
    assert.equal(detail.job_env.PLAIN_SETTING, '**********', 'a value holding a secret is hidden whatever its name');
    assert.equal(detail.job_env.ANSIBLE_FORCE_COLOR, 'True');
    const look = (await eventsOf(job.id, '&task=look&event=runner_on_ok')).results[0];
    assert.match(look.stdout, /"msg": "19"/, 'the run had the secret');
    for (const url of [`/api/v2/jobs/${job.id}/`, `/api/v2/jobs/${job.id}/job_events/?page_size=200`, `/api/v2/unified_jobs/?id=${job.id}`, `/api/v2/jobs/?id=${job.id}`]) {
      assert.ok(!(await t.get(url)).text.includes(SECRET), url);
    }
    const [stored] = await t.db.query<AnyRow>('SELECT job_args, job_env::text AS env FROM unified_jobs WHERE id = $1', [job.id]);
    assert.ok(!stored.job_args.includes(SECRET) && !stored.env.includes(SECRET));
    const listed = (await t.get(`/api/v2/jobs/?id=${job.id}`)).body.results[0];
    for (const field of ['job_args', 'job_env', 'job_cwd', 'playbook_counts']) assert.ok(!(field in listed), `${field} is only on the job's own page`);
  });

  it('project update events as AWX serves them; the update shows its counts and command', async () => {
    const update = (await t.get(`/api/v2/projects/${projectId}/project_updates/`)).body.results[0];
    const [event] = (await t.get(`/api/v2/project_updates/${update.id}/events/`)).body.results;
    assert.equal(event.type, 'project_update_event');
    assert.equal(event.url, '');
    assert.deepEqual(event.related, { project_update: `/api/v2/project_updates/${update.id}/` });
    assert.equal(event.project_update, update.id);
    assert.equal(event.host_name, 'localhost');
    assert.equal(event.event_display, 'Verbose');
    assert.equal(event.summary_fields.project_update.id, update.id);
    for (const field of ['job', 'parent_uuid', 'host']) assert.ok(!(field in event), field);
    const detail = (await t.get(`/api/v2/project_updates/${update.id}/`)).body;
    assert.deepEqual(detail.host_status_counts, {});
    assert.deepEqual(detail.playbook_counts, { play_count: 0, task_count: 0 });
    assert.equal(JSON.parse(detail.job_args)[0], 'git');
  });

  it('ad hoc command events: their own shape and detail, visible through the inventory', async () => {
    const command = await insertRun({ kind: 'ad_hoc_command', name: 'ping', status: 'successful', inventory_id: inventoryId, organization_id: orgId, module_name: 'ping' });
    const host = (await t.get(`/api/v2/hosts/?name=h2&inventory=${inventoryId}`)).body.results[0];
    const [id] = await insertEvents(command, [['runner_on_ok', 'u1', '', { host_id: host.id, host_name: 'h2' }]]);
    const listed = (await t.get(`/api/v2/ad_hoc_commands/${command}/events/`)).body.results[0];
    const detail = (await t.get(`/api/v2/ad_hoc_command_events/${id}/`)).body;
    assert.deepEqual(detail, listed);
    assert.equal(detail.type, 'ad_hoc_command_event');
    assert.equal(detail.url, `/api/v2/ad_hoc_command_events/${id}/`);
    assert.deepEqual(detail.related, { ad_hoc_command: `/api/v2/ad_hoc_commands/${command}/`, host: `/api/v2/hosts/${host.id}/` });
    assert.equal(detail.event_display, 'Host OK');
    assert.deepEqual(detail.summary_fields, { host: { id: host.id, name: 'h2', description: '' } });
    for (const field of ['event_level', 'parent_uuid', 'play', 'task']) assert.ok(!(field in detail), field);
    assert.equal((await t.get(`/api/v2/ad_hoc_command_events/${id}/`, { as: plain })).status, 403);
    assert.equal((await t.get(`/api/v2/ad_hoc_command_events/${id}/`, { as: otherAdmin })).status, 403);
  });

  it('unified lists show each item with its own kind\'s fields and URL', async () => {
    const update = (await t.get(`/api/v2/projects/${projectId}/project_updates/`)).body.results[0];
    const runs = (await t.get(`/api/v2/unified_jobs/?id__in=${job.id},${update.id}`)).body.results;
    const asJob = runs.find((r: any) => r.id === job.id);
    const asUpdate = runs.find((r: any) => r.id === update.id);
    assert.equal(asJob.url, `/api/v2/jobs/${job.id}/`);
    assert.equal(asJob.playbook, 'site.yml');
    assert.equal(asJob.job_template, templateId);
    assert.equal(asJob.related.job_events, `/api/v2/jobs/${job.id}/job_events/`);
    assert.equal(asUpdate.url, `/api/v2/project_updates/${update.id}/`);
    assert.equal(asUpdate.project, projectId);
    assert.ok(!('playbook' in asUpdate));
    assert.equal(asUpdate.related.events, `/api/v2/project_updates/${update.id}/events/`);
    const own = (await t.get(`/api/v2/jobs/${job.id}/`)).body;
    for (const field of ['playbook', 'job_template', 'summary_fields', 'related']) assert.deepEqual(asJob[field], own[field], field);

    const templates = (await t.get(`/api/v2/unified_job_templates/?name=Plays`)).body.results;
    const asTemplate = templates.find((r: any) => r.type === 'job_template');
    const asProject = templates.find((r: any) => r.type === 'project');
    assert.equal(asTemplate.url, `/api/v2/job_templates/${templateId}/`);
    assert.equal(asTemplate.playbook, 'site.yml');
    assert.equal(asTemplate.related.launch, `/api/v2/job_templates/${templateId}/launch/`);
    assert.equal(asProject.url, `/api/v2/projects/${projectId}/`);
    assert.equal(asProject.scm_type, 'git');
    assert.equal((await t.get('/api/v2/unified_job_templates/?name=Plays', { as: otherAdmin })).body.count, 0);
  });
});
