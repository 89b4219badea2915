import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, grant, newInventory, newJobTemplate, newOrg, newProject, newUser, type TestApp } from './helpers/app.ts';
import { waitForRun } from './helpers/jobs.ts';
import { configureSecretKey } from '../src/secrets/encryption.ts';
import { reencryptAll } from '../src/secrets/rotation.ts';
import { SECRET_STORES } from '../src/composition/root.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const HELLO = `- hosts: all
  gather_facts: false
  tasks:
    - name: greet
      debug: msg="hello {{ inventory_hostname }} word={{ secret_word | default('none') }}"
    - name: check the secret
      assert:
        that: secret_word | default('opensesame') == 'opensesame'
`;
const FAIL_H2 = `- hosts: all
  gather_facts: false
  tasks:
    - name: fail on h2
      fail: msg=boom
      when: inventory_hostname == 'h2'
`;

describe('relaunching jobs', () => {
  let t: TestApp;
  let org: number;
  let project: number;
  let inventory: number;

  const template = (name: string, playbook: string, extra: Record<string, unknown> = {}) => newJobTemplate(t, { name, project, inventory, playbook, ...extra });
  const launch = async (templateId: number, body: Record<string, unknown> = {}) => {
    const res = await t.post(`/api/v2/job_templates/${templateId}/launch/`, body);
    assert.equal(res.status, 201, res.text);
    return waitForRun(t, res.body.url, 120_000);
  };
  const jobCount = async () => (await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM unified_jobs WHERE kind = 'job'"))[0].n;
  const summaries = async (jobId: number) =>
    (await t.get(`/api/v2/jobs/${jobId}/job_host_summaries/`)).body.results.map((r: any) => [r.host_name, r.failed]);

  before(async () => {
    t = await createTestApp();
    org = (await newOrg(t)).id;
    project = (await newProject(t, org, { name: 'Plays', files: { 'hello.yml': HELLO, 'fail.yml': FAIL_H2 } })).id;
    inventory = (await newInventory(t, org, { name: 'Local', hosts: ['h1', 'h2'] })).id;
  });
  after(async () => {
    await t.close();
  });

  it('GET relaunch describes it; POST runs the same template again with the same options as launch_type relaunch', async () => {
    const jt = await template('Hello', 'hello.yml', { ask_limit_on_launch: true, ask_variables_on_launch: true });
    const first = await launch(jt.id, { limit: 'h1', extra_vars: { colour: 'red' } });
    assert.equal(first.status, 'successful', first.job_explanation);
    assert.equal(first.related.relaunch, `/api/v2/jobs/${first.id}/relaunch/`);
    const described = await t.get(`/api/v2/jobs/${first.id}/relaunch/`);
    assert.equal(described.status, 200);
    assert.deepEqual(described.body, { passwords_needed_to_start: [], retry_counts: { all: 1, failed: 0 } });

    const res = await t.post(`/api/v2/jobs/${first.id}/relaunch/`, {});
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.job, res.body.id);
    assert.equal(res.headers.location, `/api/v2/jobs/${res.body.id}/`);
    assert.equal(res.body.launch_type, 'relaunch');
    assert.equal(res.body.job_template, jt.id);
    assert.equal(res.body.limit, 'h1');
    assert.match(res.body.extra_vars, /"colour": "red"/);
    const again = await waitForRun(t, res.body.url, 120_000);
    assert.equal(again.status, 'successful', again.job_explanation);
    assert.deepEqual(await summaries(again.id), [['h1', false]]);
  });

  it('hosts=failed runs only the failed and unreachable hosts of the original run', async () => {
    const jt = await template('Fail h2', 'fail.yml');
    const first = await launch(jt.id);
    assert.equal(first.status, 'failed');
    assert.deepEqual((await t.get(`/api/v2/jobs/${first.id}/relaunch/`)).body.retry_counts, { all: 2, failed: 1 });
    const res = await t.post(`/api/v2/jobs/${first.id}/relaunch/`, { hosts: 'failed' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.limit, 'h2');
    const retried = await waitForRun(t, res.body.url, 120_000);
    assert.deepEqual(await summaries(retried.id), [['h2', true]]);
  });

  it('hosts=failed without failed hosts, or an unknown hosts value, is a 400 and creates nothing', async () => {
    const jt = await template('All good', 'hello.yml');
    const first = await launch(jt.id);
    assert.equal(first.status, 'successful', first.job_explanation);
    const before = await jobCount();
    const none = await t.post(`/api/v2/jobs/${first.id}/relaunch/`, { hosts: 'failed' });
    assert.equal(none.status, 400);
    assert.deepEqual(none.body, { hosts: ['Cannot relaunch because previous job had 0 failed hosts.'] });
    const bad = await t.post(`/api/v2/jobs/${first.id}/relaunch/`, { hosts: 'some' });
    assert.deepEqual([bad.status, bad.body], [400, { hosts: ['"some" is not a valid choice.'] }]);
    const passwords = await t.post(`/api/v2/jobs/${first.id}/relaunch/`, { credential_passwords: ['secret'] });
    assert.deepEqual([passwords.status, passwords.body], [400, { credential_passwords: ['Expected a dictionary of passwords.'] }]);
    assert.equal(await jobCount(), before);
  });

  it('survey password answers are carried encrypted and still reach the relaunched run', async () => {
    const jt = await template('Survey', 'hello.yml');
    const spec = { name: 's', description: '', spec: [{ variable: 'secret_word', question_name: 'Word', type: 'password', required: true }] };
    assert.equal((await t.post(`/api/v2/job_templates/${jt.id}/survey_spec/`, spec)).status, 200);
    assert.equal((await t.patch(`/api/v2/job_templates/${jt.id}/`, { survey_enabled: true })).status, 200);
    const first = await launch(jt.id, { extra_vars: { secret_word: 'opensesame' } });
    assert.equal(first.status, 'successful', first.job_explanation);
    const res = await t.post(`/api/v2/jobs/${first.id}/relaunch/`, {});
    assert.equal(res.status, 201, res.text);
    assert.match(res.body.extra_vars, /"secret_word": "\$encrypted\$"/);
    const [row] = await t.db.query<AnyRow>('SELECT extra_vars, survey_passwords FROM unified_jobs WHERE id = $1', [res.body.id]);
    assert.ok(!row.extra_vars.includes('opensesame'));
    assert.deepEqual(row.survey_passwords, { secret_word: '$encrypted$' });
    const again = await waitForRun(t, res.body.url, 120_000);
    assert.equal(again.status, 'successful', 'the assert on the secret passed');
    assert.ok(!(await t.get(`${again.url}stdout/?format=txt`)).text.includes('opensesame'));

    // regenerate_secret_key re-encrypts the stored answers: a relaunch after it still runs with them.
    const newKey = 'rotated-secret-key-for-relaunch-test';
    const counts = await t.db.transaction((tx) => reencryptAll(tx, SECRET_STORES, t.env.secretKey, newKey));
    assert.ok(counts['job survey passwords'] >= 2);
    configureSecretKey(newKey);
    t.env.secretKey = newKey;
    const rotated = await t.post(`/api/v2/jobs/${again.id}/relaunch/`, {});
    assert.equal(rotated.status, 201, rotated.text);
    assert.equal((await waitForRun(t, rotated.body.url, 120_000)).status, 'successful');
  });

  it('relaunching needs execute on the template: 403 with read only, 201 with execute', async () => {
    const jt = await template('Guarded', 'hello.yml');
    const first = await launch(jt.id);
    const user = await newUser(t);
    assert.equal((await t.post(`/api/v2/jobs/${first.id}/relaunch/`, {}, { as: user })).status, 403, 'cannot even see the job');
    await grant(t, user, jt, 'read_role');
    const before = await jobCount();
    assert.equal((await t.post(`/api/v2/jobs/${first.id}/relaunch/`, {}, { as: user })).status, 403);
    assert.equal(await jobCount(), before);
    await grant(t, user, jt, 'execute_role');
    const res = await t.post(`/api/v2/jobs/${first.id}/relaunch/`, {}, { as: user });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.launch_type, 'relaunch');
    await waitForRun(t, res.body.url, 120_000);
  });

  it('a job whose template was deleted cannot be relaunched', async () => {
    const jt = await template('Doomed', 'hello.yml');
    const first = await launch(jt.id);
    assert.equal((await t.delete(`/api/v2/job_templates/${jt.id}/`)).status, 204);
    const res = await t.post(`/api/v2/jobs/${first.id}/relaunch/`, {});
    assert.equal(res.status, 400);
    assert.match(res.body.job_template[0], /deleted/);
  });

  it('launch-time labels and instance groups are stored on the job, checked, and carried by a relaunch', async () => {
    const jt = await template('Prompted', 'hello.yml', { ask_labels_on_launch: true, ask_instance_groups_on_launch: true });
    const labelA = (await t.post('/api/v2/labels/', { name: 'alpha', organization: org })).body.id;
    const labelB = (await t.post('/api/v2/labels/', { name: 'beta', organization: org })).body.id;
    const groups = (await t.get('/api/v2/instance_groups/?order_by=id')).body.results.map((g: any) => g.id);
    const extra = (await t.post('/api/v2/instance_groups/', { name: 'extra' })).body.id;
    const chosen = [extra, ...groups];

    assert.deepEqual((await t.post(`/api/v2/job_templates/${jt.id}/launch/`, { labels: [99999] })).body, { labels: ['Invalid pk "99999" - object does not exist.'] });
    assert.equal((await t.post(`/api/v2/job_templates/${jt.id}/launch/`, { instance_groups: 'extra' })).status, 400);
    const user = await newUser(t);
    await grant(t, user, jt, 'execute_role');
    assert.equal((await t.post(`/api/v2/job_templates/${jt.id}/launch/`, { instance_groups: [extra] }, { as: user })).status, 403, 'a group the user cannot see');

    const res = await t.post(`/api/v2/job_templates/${jt.id}/launch/`, { labels: [labelB, labelA], instance_groups: chosen });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.summary_fields.labels, { count: 2, results: [{ id: labelA, name: 'alpha' }, { id: labelB, name: 'beta' }] });
    assert.deepEqual((await t.get(`/api/v2/jobs/${res.body.id}/labels/`)).body.results.map((l: any) => l.name).sort(), ['alpha', 'beta']);
    const stored = async (jobId: number) =>
      (await t.db.query<AnyRow>('SELECT instance_group_id FROM unified_job_instance_groups WHERE unified_job_id = $1 ORDER BY position', [jobId])).map((r) => r.instance_group_id);
    assert.deepEqual(await stored(res.body.id), chosen);
    const first = await waitForRun(t, res.body.url, 120_000);

    const relaunched = await t.post(`/api/v2/jobs/${first.id}/relaunch/`, {});
    assert.equal(relaunched.status, 201, relaunched.text);
    assert.equal(relaunched.body.summary_fields.labels.count, 2);
    assert.deepEqual(await stored(relaunched.body.id), chosen);
    await waitForRun(t, relaunched.body.url, 120_000);

    // Without the ask flag the prompt is ignored and the job carries the template's labels.
    const plain = await template('Plain', 'hello.yml');
    await t.post(`/api/v2/job_templates/${plain.id}/labels/`, { id: labelA });
    const ignored = await t.post(`/api/v2/job_templates/${plain.id}/launch/`, { labels: [labelB] });
    assert.equal(ignored.status, 201, ignored.text);
    assert.deepEqual(ignored.body.ignored_fields, { labels: [labelB] });
    assert.deepEqual(ignored.body.summary_fields.labels.results, [{ id: labelA, name: 'alpha' }]);
    await waitForRun(t, ignored.body.url, 120_000);
  });
});
