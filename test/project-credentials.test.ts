import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, grant, newOrg, newUser, type TestApp } from './helpers/app.ts';
import { makeRepository, startGitHttpServer, startSshGitServer, type GitHttpServer, type GitRepository, type SshGitServer } from './helpers/git.ts';
import { eventually, runDirectories, waitForRun } from './helpers/jobs.ts';
import { configureSecretKey } from '../src/secrets/encryption.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const PASSWORD = 'hunter2-very-secret';

describe('project updates with source control credentials', () => {
  let t: TestApp;
  let orgId: number;
  let scmType: number;
  let repo: GitRepository;
  let http: GitHttpServer;
  let ssh: SshGitServer;

  before(async () => {
    t = await createTestApp();
    orgId = (await newOrg(t)).id;
    scmType = (await t.get('/api/v2/credential_types/?namespace=scm')).body.results[0].id;
    repo = await makeRepository({ 'site.yml': '- hosts: all\n  tasks: []\n' });
    http = await startGitHttpServer(repo.root, { username: 'git', password: PASSWORD });
    ssh = await startSshGitServer(repo.root);
  });
  after(async () => {
    await t.close();
    await http.close();
    await ssh.close();
    await repo.remove();
  });

  const credential = async (name: string, inputs: Record<string, string>) => {
    const res = await t.post('/api/v2/credentials/', { name, organization: orgId, credential_type: scmType, inputs });
    assert.equal(res.status, 201, res.text);
    return res.body.id as number;
  };
  const sync = async (name: string, scm_url: string, credentialId?: number) => {
    const res = await t.post('/api/v2/projects/', { name, organization: orgId, scm_type: 'git', scm_url, credential: credentialId ?? null });
    assert.equal(res.status, 201, res.text);
    const first = await eventually(async () => (await t.get(`/api/v2/projects/${res.body.id}/project_updates/`)).body.results[0]);
    return waitForRun(t, first.url);
  };
  const leftovers = async (id: number) => runDirectories(t, id);

  it('https with user name and password: the sync authenticates, the password shows nowhere', async () => {
    const done = await sync('over-http', http.url(repo.name), await credential('http', { username: 'git', password: PASSWORD }));
    assert.equal(done.status, 'successful', done.job_explanation);
    assert.equal(done.scm_revision, await repo.head());
    assert.ok(http.requests.some((r) => r.user === 'git' && r.status === 200));
    const output = (await t.get(`${done.url}stdout/?format=txt`)).text;
    assert.ok(!output.includes(PASSWORD));
    const [row] = await t.db.query<AnyRow>('SELECT job_args, job_env::text AS env FROM unified_jobs WHERE id = $1', [done.id]);
    assert.ok(!row.env.includes(PASSWORD) && !row.job_args.includes(PASSWORD));
    assert.deepEqual(await leftovers(done.id), []);
  });

  it('a credential the secret key cannot decrypt ends the sync in error, saying so', async () => {
    const id = await credential('old-key', { username: 'git', password: PASSWORD });
    configureSecretKey('a-different-key');
    try {
      const done = await sync('wrong-key', http.url(repo.name), id);
      assert.equal(done.status, 'error');
      assert.match(done.job_explanation, /cannot be decrypted: was SVC_SECRET_KEY changed\?/);
    } finally {
      configureSecretKey(t.env.secretKey);
    }
  });

  it('https without a credential fails with the reason in the output', async () => {
    const done = await sync('no-credential', http.url(repo.name));
    assert.equal(done.status, 'failed');
    assert.match(done.job_explanation, /git fetch failed/);
    assert.match((await t.get(`${done.url}stdout/?format=txt`)).text, /Authentication failed|could not read Username|terminal prompts disabled/);
  });

  it('ssh with a private key, and with an encrypted key and its passphrase, through a private agent', async () => {
    const plain = await sync('over-ssh', ssh.url(repo.name), await credential('ssh', { username: 'root', ssh_key_data: ssh.privateKey }));
    assert.equal(plain.status, 'successful', plain.job_explanation);
    assert.equal(plain.scm_revision, await repo.head());
    const locked = await credential('ssh-locked', { username: 'root', ssh_key_data: ssh.encryptedPrivateKey, ssh_key_unlock: ssh.passphrase });
    const unlocked = await sync('over-ssh-locked', ssh.url(repo.name), locked);
    assert.equal(unlocked.status, 'successful', unlocked.job_explanation);
    const output = (await t.get(`${unlocked.url}stdout/?format=txt`)).text;
    assert.ok(!output.includes(ssh.passphrase) && !output.includes('PRIVATE KEY'));
    assert.deepEqual(await leftovers(unlocked.id), []);
  });

  it('ssh without a key is refused by the server and the sync fails', async () => {
    const done = await sync('ssh-no-key', ssh.url(repo.name));
    assert.equal(done.status, 'failed');
    assert.match((await t.get(`${done.url}stdout/?format=txt`)).text, /Permission denied|Could not read from remote repository/);
  });

  it('a project needs a Source Control credential the caller may use', async () => {
    const machine = (await t.get('/api/v2/credential_types/?namespace=ssh')).body.results[0].id;
    const wrongKind = (await t.post('/api/v2/credentials/', { name: 'machine', organization: orgId, credential_type: machine, inputs: { username: 'x' } })).body.id;
    const res = await t.post('/api/v2/projects/', { name: 'wrong-kind', organization: orgId, scm_type: 'git', scm_url: http.url(repo.name), credential: wrongKind });
    assert.equal(res.status, 400);
    assert.match(res.body.credential[0], /Credential kind must be 'scm'/);
    const member = await newUser(t);
    await grant(t, member, `/api/v2/organizations/${orgId}/`, 'project_admin_role');
    const secretOne = await credential('not-yours', { username: 'git', password: PASSWORD });
    const refused = await t.post('/api/v2/projects/', { name: 'not-yours', organization: orgId, scm_type: 'git', scm_url: http.url(repo.name), credential: secretOne }, { as: member });
    assert.equal(refused.status, 403);
    await grant(t, member, `/api/v2/credentials/${secretOne}/`, 'use_role');
    const allowed = await t.post('/api/v2/projects/', { name: 'now-yours', organization: orgId, scm_type: 'git', scm_url: http.url(repo.name), credential: secretOne }, { as: member });
    assert.equal(allowed.status, 201, allowed.text);
    assert.equal(allowed.body.summary_fields.credential.name, 'not-yours');
  });
});
