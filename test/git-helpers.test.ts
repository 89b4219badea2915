import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { git, makeRepository, startGitHttpServer, startSshGitServer, type GitRepository } from './helpers/git.ts';

/** Runs git and answers the error text instead of throwing, for the refusals. */
const gitFails = (cwd: string, args: string[], env: Record<string, string> = {}) =>
  git(cwd, args, env).then(
    () => assert.fail(`git ${args.join(' ')} succeeded`),
    (err: Error) => err.message,
  );

describe('git test helpers', () => {
  let root: string;
  let scratch: string;
  let repo: GitRepository;
  let library: GitRepository;
  const sha = { initial: '', second: '', feature: '', pull: '', submodule: '' };

  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'git-helpers-root-'));
    scratch = await mkdtemp(path.join(tmpdir(), 'git-helpers-scratch-'));
    repo = await makeRepository({ 'site.yml': '- hosts: all\n  tasks: []\n', 'inventory/hosts': 'web1\n' }, { root, name: 'playbooks' });
    sha.initial = await repo.head();
    library = await makeRepository({ 'README.md': 'shared library\n' }, { root, name: 'library' });
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(scratch, { recursive: true, force: true });
    await repo.remove();
    await library.remove();
  });

  const cloneDir = (name: string) => path.join(scratch, name);

  describe('repositories', () => {
    it('commit, branch, tags and refs resolve to the shas the helpers answered', async () => {
      sha.second = await repo.commit({ 'deploy.yml': '- import_playbook: site.yml\n', 'inventory/hosts': null }, 'Second');
      sha.feature = await repo.branch('feature', { 'feature.yml': '- hosts: web\n' });
      const light = await repo.tag('v1', { ref: sha.initial });
      const annotated = await repo.tag('v2', { message: 'Release 2' });
      sha.pull = await repo.pushRef('refs/pull/7/head', { 'pr.yml': '- hosts: all\n' });
      assert.equal(light, sha.initial);
      assert.equal(annotated, sha.second);
      assert.notEqual(sha.initial, sha.second);
      assert.equal(await repo.head(), sha.second);
      assert.equal(await repo.head('feature'), sha.feature);
      assert.equal(await repo.head('refs/pull/7/head'), sha.pull);

      const refs = Object.fromEntries(
        (await git(scratch, ['ls-remote', repo.bare])).split('\n').map((line) => line.split('\t').reverse()),
      );
      assert.equal(refs['refs/heads/main'], sha.second);
      assert.equal(refs['refs/heads/feature'], sha.feature);
      assert.equal(refs['refs/tags/v1'], sha.initial);
      // An annotated tag is an object of its own, peeled to the commit.
      assert.notEqual(refs['refs/tags/v2'], sha.second);
      assert.equal(refs['refs/tags/v2^{}'], sha.second);
      assert.equal(refs['refs/pull/7/head'], sha.pull);
      assert.equal(await git(repo.bare, ['cat-file', '-t', 'refs/tags/v2']), 'tag');
      // The working clone went back to the default branch: later commits land on main only.
      assert.equal(await repo.git('rev-parse', '--abbrev-ref', 'HEAD'), 'main');
      assert.equal(await git(repo.bare, ['show', 'feature:site.yml']), '- hosts: all\n  tasks: []');
    });

    it('files may be executable', async () => {
      const scripts = await makeRepository({ 'inventory.py': { content: '#!/bin/sh\necho {}\n', mode: 0o755 }, 'plain.txt': 'x' });
      const dir = cloneDir('modes');
      await git(scratch, ['clone', '--quiet', scripts.bare, dir]);
      assert.equal((await stat(path.join(dir, 'inventory.py'))).mode & 0o111, 0o111);
      assert.equal((await stat(path.join(dir, 'plain.txt'))).mode & 0o111, 0);
      await scripts.remove();
      await assert.rejects(stat(scripts.root));
    });
  });

  describe('HTTP server without authentication', () => {
    let server: Awaited<ReturnType<typeof startGitHttpServer>>;
    before(async () => (server = await startGitHttpServer(root)));
    after(() => server.close());

    it('clones the default branch, a branch and a tag; fetches a refspec', async () => {
      const dir = cloneDir('http-plain');
      await git(scratch, ['clone', '--quiet', server.url('playbooks'), dir]);
      assert.equal(await git(dir, ['rev-parse', 'HEAD']), sha.second);
      assert.equal(await readFile(path.join(dir, 'deploy.yml'), 'utf8'), '- import_playbook: site.yml\n');

      const branch = cloneDir('http-branch');
      await git(scratch, ['clone', '--quiet', '--branch', 'feature', server.url('playbooks.git'), branch]);
      assert.equal(await git(branch, ['rev-parse', 'HEAD']), sha.feature);
      const tag = cloneDir('http-tag');
      await git(scratch, ['clone', '--quiet', '--branch', 'v2', server.url('playbooks'), tag]);
      assert.equal(await git(tag, ['rev-parse', 'HEAD']), sha.second);

      await git(dir, ['fetch', '--quiet', 'origin', '+refs/pull/7/head:refs/remotes/origin/pr-7']);
      assert.equal(await git(dir, ['rev-parse', 'origin/pr-7']), sha.pull);
      assert.ok(server.requests.some((r) => r.method === 'POST' && r.path === '/playbooks.git/git-upload-pack' && r.status === 200));
      assert.ok(server.requests.every((r) => r.user === null));
    });

    it('answers 404 for a repository that does not exist, and refuses pushes', async () => {
      const missing = await gitFails(scratch, ['ls-remote', server.url('nothing-here')]);
      assert.match(missing, /not found|404/i);
      const before = await library.head();
      const dir = cloneDir('http-push');
      await git(scratch, ['clone', '--quiet', server.url('library'), dir]);
      await writeFile(path.join(dir, 'new.txt'), 'x');
      await git(dir, ['add', '.']);
      await git(dir, ['commit', '--quiet', '-m', 'push attempt']);
      await gitFails(dir, ['push', '--quiet', 'origin', 'HEAD:main']);
      assert.equal(await library.head(), before);
    });

    it('clones submodules recursively through a relative URL', async () => {
      sha.submodule = await repo.addSubmodule('vendor/library', library);
      const dir = cloneDir('http-submodule');
      await git(scratch, ['clone', '--quiet', '--recurse-submodules', server.url('playbooks'), dir]);
      assert.equal(await readFile(path.join(dir, 'vendor/library/README.md'), 'utf8'), 'shared library\n');
      assert.equal(await git(path.join(dir, 'vendor/library'), ['rev-parse', 'HEAD']), await library.head());
      assert.match(await readFile(path.join(dir, '.gitmodules'), 'utf8'), /url = \.\.\/library\.git/);
      assert.equal(await git(dir, ['rev-parse', 'HEAD']), sha.submodule);
    });
  });

  describe('HTTP server with Basic authentication', () => {
    let server: Awaited<ReturnType<typeof startGitHttpServer>>;
    before(async () => (server = await startGitHttpServer(root, { username: 'git-user', password: 'p@ss:word' })));
    after(() => server.close());

    it('refuses a clone without credentials with 401 and WWW-Authenticate', async () => {
      const message = await gitFails(scratch, ['clone', '--quiet', server.url('playbooks'), cloneDir('http-anon')]);
      assert.match(message, /Authentication failed|could not read Username/i);
      const res = await fetch(`${server.url('playbooks')}/info/refs?service=git-upload-pack`);
      assert.equal(res.status, 401);
      assert.equal(res.headers.get('www-authenticate'), 'Basic realm="Git"');
      const wrong = await fetch(`${server.url('playbooks')}/info/refs?service=git-upload-pack`, {
        headers: { authorization: `Basic ${Buffer.from('git-user:nope').toString('base64')}` },
      });
      assert.equal(wrong.status, 401);
    });

    it('clones with the credentials in the URL', async () => {
      const dir = cloneDir('http-url-auth');
      await git(scratch, ['clone', '--quiet', server.urlWithCredentials('playbooks'), dir]);
      assert.equal(await git(dir, ['rev-parse', 'HEAD']), sha.submodule);
      assert.ok(server.requests.some((r) => r.user === 'git-user' && r.status === 200));
    });

    it('clones with credentials from GIT_ASKPASS, and fails with a wrong password', async () => {
      const askpass = path.join(scratch, 'askpass.sh');
      await writeFile(askpass, '#!/bin/sh\ncase "$1" in Username*) echo "$GIT_TEST_USER" ;; *) echo "$GIT_TEST_PASSWORD" ;; esac\n', { mode: 0o700 });
      const dir = cloneDir('http-askpass');
      await git(scratch, ['clone', '--quiet', server.url('playbooks'), dir], { GIT_ASKPASS: askpass, GIT_TEST_USER: 'git-user', GIT_TEST_PASSWORD: 'p@ss:word' });
      assert.equal(await readFile(path.join(dir, 'site.yml'), 'utf8'), '- hosts: all\n  tasks: []\n');
      const env = { GIT_ASKPASS: askpass, GIT_TEST_USER: 'git-user', GIT_TEST_PASSWORD: 'wrong' };
      assert.match(await gitFails(scratch, ['clone', '--quiet', server.url('playbooks'), cloneDir('http-askpass-bad')], env), /Authentication failed/);
    });
  });

  describe('SSH server', () => {
    let server: Awaited<ReturnType<typeof startSshGitServer>>;
    let keyFile: string;
    let encryptedKeyFile: string;
    let knownHosts: string;
    const sshCommand = (key: string, extra = '') =>
      `ssh -i ${key} -o IdentitiesOnly=yes -o IdentityAgent=none -o UserKnownHostsFile=${knownHosts} -o StrictHostKeyChecking=yes ${extra}`;

    before(async () => {
      server = await startSshGitServer(root);
      keyFile = path.join(scratch, 'id_plain');
      encryptedKeyFile = path.join(scratch, 'id_encrypted');
      knownHosts = path.join(scratch, 'known_hosts');
      await writeFile(keyFile, server.privateKey, { mode: 0o600 });
      await writeFile(encryptedKeyFile, server.encryptedPrivateKey, { mode: 0o600 });
      await writeFile(knownHosts, `${server.knownHostsLine}\n`);
    });
    after(() => server.close());

    it('clones with the key, checking the host key against knownHostsLine', async () => {
      assert.match(server.url('playbooks'), new RegExp(`^ssh://root@127\\.0\\.0\\.1:${server.port}/.+/playbooks\\.git$`));
      assert.match(server.privateKey, /BEGIN OPENSSH PRIVATE KEY/);
      const dir = cloneDir('ssh-plain');
      await git(scratch, ['clone', '--quiet', '--recurse-submodules', server.url('playbooks'), dir], { GIT_SSH_COMMAND: sshCommand(keyFile, '-o BatchMode=yes') });
      assert.equal(await git(dir, ['rev-parse', 'HEAD']), sha.submodule);
      assert.equal(await readFile(path.join(dir, 'vendor/library/README.md'), 'utf8'), 'shared library\n');
    });

    it('refuses a key it does not know, and an unknown host key', async () => {
      const stranger = path.join(scratch, 'id_stranger');
      await promisify(execFile)('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', stranger]);
      const refused = await gitFails(scratch, ['ls-remote', server.url('playbooks')], { GIT_SSH_COMMAND: sshCommand(stranger, '-o BatchMode=yes') });
      assert.match(refused, /Permission denied/);
      await writeFile(knownHosts, '');
      try {
        const unknown = await gitFails(scratch, ['ls-remote', server.url('playbooks')], { GIT_SSH_COMMAND: sshCommand(keyFile, '-o BatchMode=yes') });
        assert.match(unknown, /Host key verification failed/);
      } finally {
        await writeFile(knownHosts, `${server.knownHostsLine}\n`);
      }
    });

    it('clones with the encrypted key given its passphrase, and not with a wrong one', async () => {
      const askpass = path.join(scratch, 'ssh-askpass.sh');
      await writeFile(askpass, '#!/bin/sh\necho "$SSH_TEST_PASSPHRASE"\n', { mode: 0o700 });
      const env = (passphrase: string) => ({
        GIT_SSH_COMMAND: sshCommand(encryptedKeyFile, '-o NumberOfPasswordPrompts=1'),
        SSH_ASKPASS: askpass,
        SSH_ASKPASS_REQUIRE: 'force',
        SSH_TEST_PASSPHRASE: passphrase,
      });
      const out = await git(scratch, ['ls-remote', server.url('playbooks'), 'refs/heads/main'], env(server.passphrase));
      assert.equal(out.split('\t')[0], sha.submodule);
      assert.match(await gitFails(scratch, ['ls-remote', server.url('playbooks')], env('not the passphrase')), /Permission denied/);
    });
  });
});
