import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestApp, newOrg, type TestApp } from './helpers/app.ts';
import { runDirectoriesRoot } from '../src/dispatcher/run-directories.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { firstProjectUpdate, runDirectories, waitForRun } from './helpers/jobs.ts';

const SHOW = `- hosts: all
  gather_facts: false
  tasks:
    - name: show
      debug: msg="greeting={{ greeting }} agent={{ lookup('env', 'SSH_AUTH_SOCK') | length > 0 }} key={{ ansible_ssh_private_key_file | default('none') }}"
`;
const PING = `- hosts: all
  gather_facts: false
  tasks:
    - name: reach
      ping:
`;

function privateKey(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'drover-key-'));
  try {
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'test', '-f', path.join(dir, 'id')]);
    return readFileSync(path.join(dir, 'id'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}


describe('job outcomes, and what a job runs with', () => {
  let t: TestApp;
  let repo: GitRepository;
  let orgId: number;
  let projectId: number;
  let inventoryId: number;

  before(async () => {
    t = await createTestApp();
    repo = await makeRepository({ 'show.yml': SHOW, 'ping.yml': PING });
    orgId = (await newOrg(t, { name: 'Ops' })).id;
    projectId = (await t.post('/api/v2/projects/', { name: 'Plays', organization: orgId, scm_type: 'git', scm_url: `file://${repo.bare}` })).body.id;
    await firstProjectUpdate(t, projectId);
    inventoryId = (await t.post('/api/v2/inventories/', {
      name: 'Local', organization: orgId, variables: 'ansible_connection: local\nansible_python_interpreter: /usr/bin/python3\ngreeting: from-inventory',
    })).body.id;
    assert.equal((await t.post('/api/v2/hosts/', { name: 'here', inventory: inventoryId })).status, 201);
  });
  after(async () => {
    await t.close();
    await repo.remove();
  });

  let templates = 0;
  const template = async (fields: Record<string, unknown>) => {
    const res = await t.post('/api/v2/job_templates/', { name: `jt-${++templates}`, project: projectId, inventory: inventoryId, ...fields });
    assert.equal(res.status, 201, res.text);
    return res.body.id as number;
  };
  const run = async (templateId: number, body: Record<string, unknown> = {}) => {
    const res = await t.post(`/api/v2/job_templates/${templateId}/launch/`, body);
    assert.equal(res.status, 201, res.text);
    return waitForRun(t, `/api/v2/jobs/${res.body.id}/`, 120_000);
  };
  const stdout = async (jobId: number) => (await t.get(`/api/v2/jobs/${jobId}/stdout/?format=txt`)).text;

  it('an unreachable host fails the job and is counted as dark', async () => {
    const inventory = (await t.post('/api/v2/inventories/', { name: 'Far', organization: orgId })).body.id;
    // Nothing listens on port 1 of the loopback address: the SSH connection is refused at once.
    await t.post('/api/v2/hosts/', { name: 'far', inventory, variables: 'ansible_host: 127.0.0.1\nansible_port: 1\nansible_connection: ssh' });
    await t.post('/api/v2/hosts/', { name: 'near', inventory, variables: 'ansible_connection: local\nansible_python_interpreter: /usr/bin/python3' });
    const job = await run(await template({ playbook: 'ping.yml', inventory }));
    assert.equal(job.status, 'failed');
    const summaries = (await t.get(`/api/v2/jobs/${job.id}/job_host_summaries/?order_by=host_name`)).body.results;
    assert.deepEqual(summaries.map((s: any) => [s.host_name, s.dark, s.ok, s.failed]), [['far', 1, 0, true], ['near', 0, 1, false]]);
    const unreachable = (await t.get(`/api/v2/jobs/${job.id}/job_events/?event=runner_on_unreachable`)).body;
    assert.equal(unreachable.count, 1);
    assert.equal(unreachable.results[0].host_name, 'far');
    const far = (await t.get(`/api/v2/hosts/?name=far&inventory=${inventory}`)).body.results[0];
    assert.equal(far.has_active_failures, true);
  });

  it('extra vars win over inventory variables, and launch-time extra vars over the template\'s', async () => {
    const fromInventory = await run(await template({ playbook: 'show.yml' }));
    assert.match(await stdout(fromInventory.id), /greeting=from-inventory/);
    const jt = await template({ playbook: 'show.yml', extra_vars: 'greeting: from-template', ask_variables_on_launch: true });
    assert.match(await stdout((await run(jt)).id), /greeting=from-template/);
    const launched = await run(jt, { extra_vars: { greeting: 'from-launch' } });
    assert.match(await stdout(launched.id), /greeting=from-launch/);
    assert.deepEqual(JSON.parse(launched.extra_vars), { greeting: 'from-launch' });
  });

  it('a machine credential\'s key reaches the run through an agent, is never shown, and leaves nothing on disk', async () => {
    const machine = (await t.get('/api/v2/credential_types/?kind=ssh')).body.results[0].id;
    const key = privateKey();
    const credential = await t.post('/api/v2/credentials/', { name: 'deploy', organization: orgId, credential_type: machine, inputs: { username: 'deployer', ssh_key_data: key } });
    assert.equal(credential.status, 201, credential.text);
    const before = await runDirectories(t);
    const jt = await template({ playbook: 'show.yml' });
    assert.equal((await t.post(`/api/v2/job_templates/${jt}/credentials/`, { id: credential.body.id })).status, 204);
    const job = await run(jt);
    assert.equal(job.status, 'successful', job.job_explanation);
    const text = await stdout(job.id);
    assert.match(text, /agent=True/, 'ansible-runner loaded the key into an ssh-agent');
    const body = key.split('\n')[1];
    assert.ok(!text.includes(body), 'the key is not in the output');
    const events = await t.db.query(`SELECT count(*)::int AS n FROM unified_job_events WHERE unified_job_id = $1 AND (stdout LIKE $2 OR event_data::text LIKE $2)`, [job.id, `%${body}%`]);
    assert.equal(events[0].n, 0);
    assert.deepEqual((await runDirectories(t)).filter((d) => !before.includes(d)), [], 'the run\'s private directory is removed');
    assert.deepEqual(job.summary_fields.credentials.map((c: any) => c.name), ['deploy']);
  });

  it('a job outlives its inventory and project; the project\'s updates go with it', async () => {
    const repo2 = await makeRepository({ 'ping.yml': PING });
    const project = (await t.post('/api/v2/projects/', { name: 'Short-lived', organization: orgId, scm_type: 'git', scm_url: `file://${repo2.bare}` })).body.id;
    const update = await firstProjectUpdate(t, project);
    const inventory = (await t.post('/api/v2/inventories/', { name: 'Short-lived', organization: orgId, variables: 'ansible_connection: local' })).body.id;
    await t.post('/api/v2/hosts/', { name: 'here', inventory });
    const job = await run(await template({ playbook: 'ping.yml', project, inventory }));
    assert.equal(job.status, 'successful', job.job_explanation);
    const gone = await t.delete(`/api/v2/inventories/${inventory}/`);
    assert.equal(gone.status, 204, gone.text);
    assert.equal((await t.delete(`/api/v2/projects/${project}/`)).status, 204);
    await repo2.remove();
    const kept = await t.get(`/api/v2/jobs/${job.id}/`);
    assert.equal(kept.status, 200);
    assert.equal(kept.body.inventory, null);
    assert.equal(kept.body.project, null);
    assert.ok((await t.get(`/api/v2/jobs/${job.id}/job_events/`)).body.count > 0, 'its events are kept');
    assert.equal((await t.get(`/api/v2/project_updates/${update.id}/`)).status, 404);
  });

  it('runs on a copy of the project, with the roles its requirements installed', async () => {
    const role = await makeRepository({
      'meta/main.yml': 'galaxy_info:\n  author: ops\n  description: greets\n  license: MIT\n  min_ansible_version: "2.9"\ndependencies: []\n',
      'tasks/main.yml': '- name: greet from the role\n  debug: msg="greeted by the role"\n',
    });
    const uses = await makeRepository({
      'site.yml': '- hosts: all\n  gather_facts: false\n  roles: [greeter]\n  tasks:\n    - debug: msg="dir={{ playbook_dir }}"\n',
      'roles/requirements.yml': `- src: git+file://${role.bare}\n  name: greeter\n`,
    });
    try {
      const project = (await t.post('/api/v2/projects/', { name: 'With roles', organization: orgId, scm_type: 'git', scm_url: `file://${uses.bare}` })).body;
      const update = await firstProjectUpdate(t, project.id);
      assert.equal(update.status, 'successful', update.job_explanation);
      const job = await run(await template({ project: project.id, playbook: 'site.yml' }));
      assert.equal(job.status, 'successful', job.job_explanation);
      const text = await stdout(job.id);
      assert.match(text, /greeted by the role/);
      const dir = text.match(/dir=(\S+?)"/)?.[1] ?? '';
      assert.ok(dir.startsWith(runDirectoriesRoot(t.env)), `the playbook ran from the run's own copy, not ${dir}`);
    } finally {
      await role.remove();
      await uses.remove();
    }
  });

  it('a job with its own scm_branch runs that branch\'s files; an unknown one fails clearly', async () => {
    const repo3 = await makeRepository({ 'site.yml': '- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: msg="from main"\n' });
    const feature = await repo3.branch('feature', { 'site.yml': '- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: msg="from feature"\n' });
    try {
      const project = (await t.post('/api/v2/projects/', { name: 'Branchy', organization: orgId, scm_type: 'git', scm_url: `file://${repo3.bare}`, allow_override: true })).body;
      await firstProjectUpdate(t, project.id);
      const jt = await template({ project: project.id, playbook: 'site.yml', ask_scm_branch_on_launch: true });
      const main = await run(jt);
      assert.match(await stdout(main.id), /from main/);
      const onFeature = await run(jt, { scm_branch: 'feature' });
      assert.equal(onFeature.status, 'successful', onFeature.job_explanation);
      assert.match(await stdout(onFeature.id), /from feature/);
      assert.equal(onFeature.scm_branch, 'feature');
      assert.equal(onFeature.scm_revision, feature);
      const unknown = await run(jt, { scm_branch: 'nowhere' });
      assert.equal(unknown.status, 'failed');
      assert.match(unknown.job_explanation, /"nowhere" is not in the project's repository/);
    } finally {
      await repo3.remove();
    }
  });
});
