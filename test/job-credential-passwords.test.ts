import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestApp, newOrg, type TestApp } from './helpers/app.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { firstProjectUpdate, waitForRun } from './helpers/jobs.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const SSH_PASSWORD = 'ssh-pw-7d1f0c';
const VAULT_PASSWORD = 'vault-pw-93ab22';

/** A playbook whose variable only the right vault password decrypts. */
async function vaultedPlaybook(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'vault-'));
  try {
    const file = path.join(dir, 'pw');
    await writeFile(file, VAULT_PASSWORD);
    const { stdout } = await promisify(execFile)('ansible-vault', ['encrypt_string', '--vault-password-file', file, 'the-treasure', '--name', 'treasure']);
    const vaulted = stdout.trim().split('\n').map((line) => `    ${line}`).join('\n');
    return `- hosts: all\n  gather_facts: false\n  vars:\n${vaulted}\n  tasks:\n    - name: open\n      debug: msg="found {{ treasure }}"\n`;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('credential passwords asked at launch', () => {
  let t: TestApp;
  let repo: GitRepository;
  let jt: any;
  let machine: number;
  let vault: number;

  const jobCount = async () => (await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM unified_jobs WHERE kind = 'job'"))[0].n;
  const launchUrl = () => `/api/v2/job_templates/${jt.id}/launch/`;

  before(async () => {
    t = await createTestApp();
    repo = await makeRepository({ 'vaulted.yml': await vaultedPlaybook() });
    const org = (await newOrg(t)).id;
    const project = (await t.post('/api/v2/projects/', { name: 'Plays', organization: org, scm_type: 'git', scm_url: `file://${repo.bare}` })).body.id;
    await firstProjectUpdate(t, project);
    const inventory = (await t.post('/api/v2/inventories/', { name: 'Local', organization: org, variables: 'ansible_connection: local\nansible_python_interpreter: /usr/bin/python3' })).body.id;
    await t.post('/api/v2/hosts/', { name: 'h1', inventory });
    const type = async (namespace: string) => (await t.get(`/api/v2/credential_types/?namespace=${namespace}`)).body.results[0].id;
    machine = (await t.post('/api/v2/credentials/', { name: 'Asking machine', organization: org, credential_type: await type('ssh'), inputs: { username: 'nobody', password: 'ASK' } })).body.id;
    vault = (await t.post('/api/v2/credentials/', { name: 'Asking vault', organization: org, credential_type: await type('vault'), inputs: { vault_password: 'ASK' } })).body.id;
    jt = (await t.post('/api/v2/job_templates/', { name: 'Vaulted', project, inventory, playbook: 'vaulted.yml' })).body;
    for (const id of [machine, vault]) assert.equal((await t.post(`/api/v2/job_templates/${jt.id}/credentials/`, { id })).status, 204);
  });
  after(async () => {
    await t.close();
    await repo.remove();
  });

  it('GET launch lists the passwords by their AWX names', async () => {
    const res = await t.get(launchUrl());
    assert.deepEqual(res.body.passwords_needed_to_start, ['ssh_password', 'vault_password']);
    assert.equal(res.body.can_start_without_user_input, false);
  });

  it('a missing password is a 400 naming it, and nothing is created', async () => {
    const before = await jobCount();
    const none = await t.post(launchUrl(), {});
    assert.equal(none.status, 400);
    assert.deepEqual(none.body, { passwords_needed_to_start: ['ssh_password', 'vault_password'] });
    const some = await t.post(launchUrl(), { credential_passwords: { ssh_password: SSH_PASSWORD, vault_password: '' } });
    assert.deepEqual(some.body, { passwords_needed_to_start: ['vault_password'] });
    assert.equal((await t.post(launchUrl(), { credential_passwords: 'nope' })).status, 400);
    assert.equal(await jobCount(), before);
  });

  it('given passwords reach the run, are stored encrypted and never shown', async () => {
    const res = await t.post(launchUrl(), { credential_passwords: { ssh_password: SSH_PASSWORD, vault_password: VAULT_PASSWORD } });
    assert.equal(res.status, 201, res.text);
    assert.ok(!res.text.includes(SSH_PASSWORD) && !res.text.includes(VAULT_PASSWORD));
    const [row] = await t.db.query<AnyRow>('SELECT credential_passwords FROM unified_jobs WHERE id = $1', [res.body.id]);
    assert.match(row.credential_passwords, /^\$encrypted\$/);
    assert.ok(!row.credential_passwords.includes(SSH_PASSWORD) && !row.credential_passwords.includes(VAULT_PASSWORD));
    const job = await waitForRun(t, res.body.url, 120_000);
    assert.equal(job.status, 'successful', job.job_explanation);
    const stdout = (await t.get(`${job.url}stdout/?format=txt`)).text;
    assert.match(stdout, /found the-treasure/, 'the vault password opened the vaulted variable');
    const seen = [
      JSON.stringify(job),
      stdout,
      (await t.get(`/api/v2/jobs/${job.id}/job_events/?page_size=200`)).text,
      (await t.get('/api/v2/activity_stream/?page_size=200')).text,
      (await t.get(`/api/v2/unified_jobs/?id=${job.id}`)).text,
    ].join('\n');
    for (const secret of [SSH_PASSWORD, VAULT_PASSWORD]) assert.ok(!seen.includes(secret), `${secret} leaked`);
    assert.ok(!('credential_passwords' in job), 'not even encrypted');
  });

  it('a wrong vault password fails the run: the given value is the one used', async () => {
    const res = await t.post(launchUrl(), { credential_passwords: { ssh_password: SSH_PASSWORD, vault_password: 'wrong' } });
    assert.equal(res.status, 201, res.text);
    assert.equal((await waitForRun(t, res.body.url, 120_000)).status, 'failed');
  });

  it('a relaunch asks for the passwords again', async () => {
    const [{ id }] = await t.db.query<AnyRow>("SELECT id FROM unified_jobs WHERE kind = 'job' AND status = 'successful' ORDER BY id LIMIT 1");
    assert.deepEqual((await t.get(`/api/v2/jobs/${id}/relaunch/`)).body.passwords_needed_to_start, ['ssh_password', 'vault_password']);
    const before = await jobCount();
    const missing = await t.post(`/api/v2/jobs/${id}/relaunch/`, { credential_passwords: { ssh_password: SSH_PASSWORD } });
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.body, { credential_passwords: ['Missing passwords needed to start: vault_password'] });
    assert.equal(await jobCount(), before);
    const res = await t.post(`/api/v2/jobs/${id}/relaunch/`, { credential_passwords: { ssh_password: SSH_PASSWORD, vault_password: VAULT_PASSWORD } });
    assert.equal(res.status, 201, res.text);
    const job = await waitForRun(t, res.body.url, 120_000);
    assert.equal(job.status, 'successful', job.job_explanation);
    assert.match((await t.get(`${job.url}stdout/?format=txt`)).text, /found the-treasure/);
  });
});
