// Values that reach git are never options: URLs, branches and refspecs that git would read as an
// option or a remote helper are refused on save, at launch and again at sync time; local
// repositories only from the directories PROJECT_LOCAL_SOURCE_DIRS lists, never from the
// projects root; a project's directory is its own, and links out of the projects root are not
// followed. Every attack is tried by a member of an organization and by the admin of another.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { access, mkdir, mkdtemp, readdir, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestApp, grant, newOrg, newUser, type TestApp, type User } from './helpers/app.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { firstProjectUpdate, waitForRun } from './helpers/jobs.ts';
import { gitAuthentication } from '../src/projects/git-auth.ts';

const run = promisify(execFile);
const PLAYBOOK = '- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: msg=hi\n';
const exists = (p: string) => access(p).then(() => true, () => false);

describe('values that reach git', () => {
  let t: TestApp;
  let allowed: string;
  let outside: string;
  let markers: string;
  let repo: GitRepository;
  let stray: GitRepository;
  let alpha: number;
  let beta: number;
  let member: User;
  let betaAdmin: User;
  let site: any;
  let memberProject: any;
  let template: any;
  let inventory: number;
  let attackCount = 0;

  /** A marker file an attack would create if git ran what it carries. */
  const marker = () => path.join(markers, `pwned-${++attackCount}`);
  const project = async (id: number) => (await t.get(`/api/v2/projects/${id}/`)).body;
  const projectNamed = async (name: string) => (await t.get(`/api/v2/projects/?name=${encodeURIComponent(name)}`)).body.count;
  const syncNow = async (id: number) => {
    const res = await t.post(`/api/v2/projects/${id}/update/`);
    assert.equal(res.status, 202, res.text);
    return waitForRun(t, res.body.url);
  };

  before(async () => {
    // Repositories live where the setting allows, and elsewhere; the app allows no directory of its own.
    t = await createTestApp({}, { localSourceDirs: [] });
    allowed = await mkdtemp(path.join(tmpdir(), 'allowed-'));
    outside = await mkdtemp(path.join(tmpdir(), 'outside-'));
    markers = await mkdtemp(path.join(tmpdir(), 'markers-'));
    // Runs see the markers directory (read-write), so a command that ran would leave its marker.
    assert.equal((await t.patch('/api/v2/settings/jobs/', { AWX_ISOLATION_SHOW_PATHS: [`${markers}:${markers}:rw`] })).status, 200);
    assert.equal((await t.patch('/api/v2/settings/jobs/', { PROJECT_LOCAL_SOURCE_DIRS: [allowed] })).status, 200);
    repo = await makeRepository({ 'site.yml': PLAYBOOK }, { root: allowed, name: 'site' });
    await repo.branch('feature/slashes', { 'feature.yml': PLAYBOOK });
    stray = await makeRepository({ 'site.yml': PLAYBOOK }, { root: outside, name: 'stray' });

    alpha = (await newOrg(t, { name: 'Alpha' })).id;
    beta = (await newOrg(t, { name: 'Beta' })).id;
    site = (await t.post('/api/v2/projects/', { name: 'Alpha site', organization: alpha, scm_type: 'git', scm_url: `file://${repo.bare}`, allow_override: true })).body;
    memberProject = (await t.post('/api/v2/projects/', { name: 'Alpha member', organization: alpha, scm_type: 'git', scm_url: repo.bare, allow_override: true })).body;
    assert.equal((await firstProjectUpdate(t, site.id)).status, 'successful');
    assert.equal((await firstProjectUpdate(t, memberProject.id)).status, 'successful');
    site = await project(site.id);
    memberProject = await project(memberProject.id);
    inventory = (await t.post('/api/v2/inventories/', { name: 'Alpha hosts', organization: alpha, variables: 'ansible_connection: local\nansible_python_interpreter: /usr/bin/python3' })).body.id;
    await t.post('/api/v2/hosts/', { name: 'h1', inventory });
    template = (await t.post('/api/v2/job_templates/', { name: 'Alpha site', project: site.id, inventory, playbook: 'site.yml', ask_scm_branch_on_launch: true })).body;
    assert.ok(template.id, JSON.stringify(template));

    // A plain member of Alpha: uses and updates the site project, runs its template, administers one project and the inventory.
    member = await newUser(t, { member: alpha });
    await grant(t, member, site, 'use_role', 'update_role');
    await grant(t, member, memberProject, 'admin_role');
    await grant(t, member, template, 'execute_role');
    await grant(t, member, `/api/v2/inventories/${inventory}/`, 'admin_role');
    // The admin of Beta, who creates projects there.
    betaAdmin = await newUser(t, { admin: beta });
  });
  after(async () => {
    await t.close();
    await repo.remove();
    await stray.remove();
  });

  const badUrls = () => [
    `--upload-pack=touch ${marker()}`,
    `--upload-pack=touch${marker()}`,
    `-cprotocol.ext.allow=always`,
    `-c core.sshCommand=touch ${marker()}`,
    `ext::sh -c touch% ${marker()}`,
    `ext::sh -c touch%20${marker()}`,
    'fd::7',
    `anything::${marker()}`,
    `ssh://-oProxyCommand=touch%20${marker()}/repo.git`,
    `git@-oProxyCommand=touch:repo.git`,
    `git@example.com:-upload-pack=touch`,
    'file://elsewhere.example.com/repo.git',
  ];
  const badBranches = () => [`--output=${marker()}`, '-c', `--upload-pack=touch${marker()}`, 'main --force', 'a..b', 'main@{1}', 'HEAD:secret', '-'];
  const badRefspecs = () => [`--upload-pack=touch ${marker()}`, `+--upload-pack=${marker()}`, `refs/heads/*:--output=${marker()}`, '^refs/heads/main', 'a:b:c'];

  describe('on save: 400 {field: [message]} and nothing stored', () => {
    it('the admin of another organization cannot create a project with a URL, branch or refspec git would misread', async () => {
      const attempts: [Record<string, string>, string, RegExp][] = [
        ...badUrls().map((scm_url) => [{ scm_url }, 'scm_url', /Invalid URL|Unsupported URL scheme/] as [Record<string, string>, string, RegExp]),
        ...badBranches().map((scm_branch) => [{ scm_url: repo.bare, scm_branch }, 'scm_branch', /begin with "-"|not a valid branch/] as [Record<string, string>, string, RegExp]),
        ...badRefspecs().map((scm_refspec) => [{ scm_url: repo.bare, scm_refspec }, 'scm_refspec', /begin with "-"|not a valid refspec/] as [Record<string, string>, string, RegExp]),
      ];
      for (const [fields, field, message] of attempts) {
        const res = await t.post('/api/v2/projects/', { name: 'Beta attack', organization: beta, scm_type: 'git', ...fields }, { as: betaAdmin });
        assert.equal(res.status, 400, `${JSON.stringify(fields)}: ${res.text}`);
        assert.match(res.body[field]?.[0] ?? '', message, JSON.stringify(fields));
      }
      assert.equal(await projectNamed('Beta attack'), 0);
    });

    it('a project member changing their project gets the same answers, and the project keeps its values', async () => {
      const before = await project(memberProject.id);
      for (const scm_url of badUrls()) {
        const res = await t.patch(`/api/v2/projects/${memberProject.id}/`, { scm_url }, { as: member });
        assert.equal(res.status, 400, scm_url);
        assert.ok(res.body.scm_url, scm_url);
      }
      for (const scm_branch of badBranches()) {
        const res = await t.patch(`/api/v2/projects/${memberProject.id}/`, { scm_branch, description: 'changed' }, { as: member });
        assert.equal(res.status, 400, scm_branch);
        assert.ok(res.body.scm_branch, scm_branch);
      }
      for (const scm_refspec of badRefspecs()) {
        const res = await t.patch(`/api/v2/projects/${memberProject.id}/`, { scm_refspec }, { as: member });
        assert.equal(res.status, 400, scm_refspec);
        assert.ok(res.body.scm_refspec, scm_refspec);
      }
      const afterwards = await project(memberProject.id);
      for (const field of ['scm_url', 'scm_branch', 'scm_refspec', 'description', 'local_path', 'modified']) assert.equal(afterwards[field], before[field], field);
      assert.equal((await t.get(`/api/v2/projects/${memberProject.id}/project_updates/`)).body.count, 1, 'no sync was queued');
      // Without the admin role on a project, no value reaches the check at all.
      assert.equal((await t.patch(`/api/v2/projects/${site.id}/`, { scm_url: `ext::sh -c touch% ${marker()}` }, { as: member })).status, 403);
    });

    it('a member launching a template that prompts for scm_branch: 400 on scm_branch, no job', async () => {
      const jobs = async () => (await t.get(`/api/v2/job_templates/${template.id}/jobs/`)).body.count;
      const before = await jobs();
      for (const scm_branch of badBranches()) {
        const res = await t.post(`/api/v2/job_templates/${template.id}/launch/`, { scm_branch }, { as: member });
        assert.equal(res.status, 400, `${scm_branch}: ${res.text}`);
        assert.match(res.body.scm_branch[0], /begin with "-"|not a valid branch/);
      }
      assert.equal(await jobs(), before);
      // The admin of another organization does not get to launch it at all.
      assert.ok([403, 404].includes((await t.post(`/api/v2/job_templates/${template.id}/launch/`, { scm_branch: `--output=${marker()}` }, { as: betaAdmin })).status));
      assert.equal(await jobs(), before);
    });

    it('a job template\'s branch, and a member\'s inventory source branch or path: 400', async () => {
      const jt = await t.patch(`/api/v2/job_templates/${template.id}/`, { scm_branch: `--output=${marker()}` });
      assert.equal(jt.status, 400);
      assert.match(jt.body.scm_branch[0], /begin with "-"/);
      for (const scm_branch of badBranches()) {
        const res = await t.post(`/api/v2/inventories/${inventory}/inventory_sources/`, { name: 'attack', source: 'scm', source_project: site.id, source_path: 'site.yml', scm_branch }, { as: member });
        assert.equal(res.status, 400, `${scm_branch}: ${res.text}`);
        assert.ok(res.body.scm_branch, scm_branch);
      }
      const escape = await t.post(`/api/v2/inventories/${inventory}/inventory_sources/`, { name: 'attack', source: 'scm', source_project: site.id, source_path: '../../../etc/hosts' }, { as: member });
      assert.equal(escape.status, 400);
      assert.ok(escape.body.source_path);
      assert.equal((await t.get(`/api/v2/inventories/${inventory}/inventory_sources/?name=attack`)).body.count, 0);
    });

    it('file:// and plain paths only under PROJECT_LOCAL_SOURCE_DIRS, never in the projects root (another project\'s checkout)', async () => {
      const checkout = path.join(t.env.projectsRoot, site.local_path);
      await access(path.join(checkout, '.git'));
      for (const scm_url of [`file://${checkout}`, checkout, `${checkout}/.git`, `file://${allowed}/../${path.relative(path.dirname(allowed), checkout)}`, `file://${stray.bare}`, stray.bare, '/etc']) {
        for (const who of [betaAdmin, member]) {
          const res = who === member
            ? await t.patch(`/api/v2/projects/${memberProject.id}/`, { scm_url }, { as: member })
            : await t.post('/api/v2/projects/', { name: 'Beta steal', organization: beta, scm_type: 'git', scm_url }, { as: who });
          assert.equal(res.status, 400, `${who.username} ${scm_url}: ${res.text}`);
          assert.match(res.body.scm_url[0], /projects root|PROJECT_LOCAL_SOURCE_DIRS/, scm_url);
        }
      }
      // A link in an allowed directory leading into the projects root is followed before the check.
      const link = path.join(allowed, 'innocent.git');
      await symlink(checkout, link);
      const linked = await t.post('/api/v2/projects/', { name: 'Beta steal', organization: beta, scm_type: 'git', scm_url: `file://${link}` }, { as: betaAdmin });
      assert.equal(linked.status, 400);
      assert.match(linked.body.scm_url[0], /projects root/);
      assert.equal(await projectNamed('Beta steal'), 0);
      assert.equal((await project(memberProject.id)).scm_url, repo.bare);
    });
  });

  describe('legitimate use still works', () => {
    it('a file:// repository under an allowed directory, a branch with slashes, and the pull-request refspec', async () => {
      const pr = await repo.pushRef('refs/pull/7/head', { 'pr.yml': PLAYBOOK });
      const created = await t.post('/api/v2/projects/', {
        name: 'Beta site', organization: beta, scm_type: 'git', scm_url: `file://${repo.bare}`, scm_branch: 'feature/slashes', scm_refspec: 'refs/pull/*:refs/remotes/origin/pull/*',
      }, { as: betaAdmin });
      assert.equal(created.status, 201, created.text);
      const first = await firstProjectUpdate(t, created.body.id);
      assert.equal(first.status, 'successful', first.job_explanation);
      assert.equal(first.scm_revision, await repo.head('feature/slashes'));
      const stdout = (await t.get(`${first.url}stdout/?format=txt`)).text;
      assert.match(stdout, /\$ git fetch .* -- origin \+refs\/heads\/\*:refs\/remotes\/origin\/\* refs\/pull\/\*:refs\/remotes\/origin\/pull\/\*/);
      const toPr = await t.patch(`/api/v2/projects/${created.body.id}/`, { scm_branch: 'pull/7/head' }, { as: betaAdmin });
      assert.equal(toPr.status, 200, toPr.text);
      const second = await waitForRun(t, (await t.get(`/api/v2/projects/${created.body.id}/project_updates/?order_by=-id`)).body.results[0].url);
      assert.equal(second.status, 'successful', second.job_explanation);
      assert.equal(second.scm_revision, pr);
    });

    it('a member launches on a branch with slashes, and the job runs its files', async () => {
      const res = await t.post(`/api/v2/job_templates/${template.id}/launch/`, { scm_branch: 'feature/slashes' }, { as: member });
      assert.equal(res.status, 201, res.text);
      const job = await waitForRun(t, res.body.url, 120_000);
      assert.equal(job.status, 'successful', job.job_explanation);
      assert.equal(job.scm_branch, 'feature/slashes');
      assert.equal(job.scm_revision, await repo.head('feature/slashes'));
    });
  });

  describe('checked again at sync time', () => {
    it('values stored before these checks (or by hand) fail the sync with an explanation; git never runs them', async () => {
      const stored: [string, string, RegExp][] = [
        ['scm_url', `ext::sh -c touch% ${marker()}`, /remote helper/],
        ['scm_url', `--upload-pack=touch${marker()}`, /begin with "-"/],
        ['scm_branch', `--output=${marker()}`, /begin with "-"/],
        ['scm_refspec', `--upload-pack=touch${marker()}`, /begin with "-"/],
        ['scm_url', `file://${stray.bare}`, /PROJECT_LOCAL_SOURCE_DIRS/],
        ['scm_url', `file://${path.join(t.env.projectsRoot, site.local_path)}`, /projects root/],
      ];
      for (const [column, value, message] of stored) {
        await t.db.query(`UPDATE projects SET scm_url = $2, scm_branch = '', scm_refspec = '' WHERE id = $1`, [memberProject.id, repo.bare]);
        await t.db.query(`UPDATE projects SET ${column} = $2 WHERE id = $1`, [memberProject.id, value]);
        const done = await syncNow(memberProject.id);
        assert.equal(done.status, 'failed', `${column}=${value}`);
        assert.match(done.job_explanation, message, `${column}=${value}`);
        assert.doesNotMatch((await t.get(`${done.url}stdout/?format=txt`)).text, /\$ git/, 'git did not run');
      }
      await t.db.query(`UPDATE projects SET scm_url = $2, scm_branch = '', scm_refspec = '' WHERE id = $1`, [memberProject.id, repo.bare]);
    });

    it('a directory taken off PROJECT_LOCAL_SOURCE_DIRS after save: the next sync fails saying why', async () => {
      const other = await mkdtemp(path.join(tmpdir(), 'later-'));
      const later = await makeRepository({ 'site.yml': PLAYBOOK }, { root: other, name: 'later' });
      assert.equal((await t.patch('/api/v2/settings/jobs/', { PROJECT_LOCAL_SOURCE_DIRS: [allowed, other] })).status, 200);
      try {
        const res = await t.post('/api/v2/projects/', { name: 'Later', organization: beta, scm_type: 'git', scm_url: `file://${later.bare}` }, { as: betaAdmin });
        assert.equal(res.status, 201, res.text);
        assert.equal((await firstProjectUpdate(t, res.body.id)).status, 'successful');
        assert.equal((await t.patch('/api/v2/settings/jobs/', { PROJECT_LOCAL_SOURCE_DIRS: [allowed] })).status, 200);
        const done = await syncNow(res.body.id);
        assert.equal(done.status, 'failed');
        assert.match(done.job_explanation, /allowed only under the directories an administrator lists in PROJECT_LOCAL_SOURCE_DIRS/);
      } finally {
        await t.patch('/api/v2/settings/jobs/', { PROJECT_LOCAL_SOURCE_DIRS: [allowed] });
        await later.remove();
      }
    });

    it('submodules: a remote helper, or a local repository outside the allowed directories, fails the sync before git fetches it', async () => {
      const sneaky = path.join(markers, 'submodule-pwned');
      const cases: [string, RegExp][] = [
        [`ext::sh -c touch% ${sneaky}`, /Submodule "lib": Invalid URL: the <transport>::<address> form/],
        [stray.bare, /Submodule "lib": Local repositories .* PROJECT_LOCAL_SOURCE_DIRS/],
        [path.join(t.env.projectsRoot, site.local_path), /Submodule "lib": The projects root/],
      ];
      for (const [i, [url, message]] of cases.entries()) {
        const app = await makeRepository({ 'site.yml': PLAYBOOK }, { root: allowed, name: `with-submodule-${i}` });
        // A gitlink and its .gitmodules entry, written by hand: git submodule add would not take these URLs.
        await writeFile(path.join(app.path, '.gitmodules'), `[submodule "lib"]\n\tpath = lib\n\turl = ${url}\n`);
        await app.git('update-index', '--add', '--cacheinfo', `160000,${await repo.head()},lib`);
        await app.git('add', '.gitmodules');
        await app.git('commit', '--quiet', '-m', 'A submodule');
        await app.git('push', '--quiet', 'origin', 'HEAD:refs/heads/main');
        const res = await t.post('/api/v2/projects/', { name: `Submodule ${i}`, organization: beta, scm_type: 'git', scm_url: `file://${app.bare}` }, { as: betaAdmin });
        assert.equal(res.status, 201, res.text);
        const done = await firstProjectUpdate(t, res.body.id);
        assert.equal(done.status, 'failed', url);
        assert.match(done.job_explanation, message);
        assert.equal(await exists(path.join(t.env.projectsRoot, (await project(res.body.id)).local_path, 'lib', 'site.yml')), false);
      }
      assert.equal(await exists(sneaky), false);
    });
  });

  describe('a project\'s directory is its own', () => {
    it('a manual project may not use another project\'s directory, nor a name of the checkouts', async () => {
      await mkdir(path.join(t.env.projectsRoot, 'alpha-manual'));
      await writeFile(path.join(t.env.projectsRoot, 'alpha-manual', 'keep.yml'), PLAYBOOK);
      const mine = await t.post('/api/v2/projects/', { name: 'Alpha manual', organization: alpha, local_path: 'alpha-manual' });
      assert.equal(mine.status, 201, mine.text);
      for (const local_path of ['alpha-manual', site.local_path, `_${site.id + 1000}__future`]) {
        const res = await t.post('/api/v2/projects/', { name: 'Beta manual', organization: beta, local_path }, { as: betaAdmin });
        assert.equal(res.status, 400, local_path);
        assert.match(res.body.local_path[0], /another project uses this directory|checkouts of source control projects/, local_path);
      }
      const moved = await t.patch(`/api/v2/projects/${memberProject.id}/`, { scm_type: '', local_path: 'alpha-manual' }, { as: member });
      assert.equal(moved.status, 400);
      assert.match(moved.body.local_path[0], /another project uses this directory/);
      assert.equal(await projectNamed('Beta manual'), 0);
      assert.equal((await project(memberProject.id)).scm_type, 'git');
    });

    it('switching manual -> git gets a checkout of its own and leaves the manual files; git -> manual needs a free directory', async () => {
      const manualDir = path.join(t.env.projectsRoot, 'beta-manual');
      await mkdir(manualDir);
      await writeFile(path.join(manualDir, 'mine.yml'), PLAYBOOK);
      const created = await t.post('/api/v2/projects/', { name: 'Beta switch', organization: beta, local_path: 'beta-manual' }, { as: betaAdmin });
      assert.equal(created.status, 201, created.text);
      const toGit = await t.patch(`/api/v2/projects/${created.body.id}/`, { scm_type: 'git', scm_url: `file://${repo.bare}` }, { as: betaAdmin });
      assert.equal(toGit.status, 200, toGit.text);
      assert.match(toGit.body.local_path, new RegExp(`^_${created.body.id}__`));
      const done = await firstProjectUpdate(t, created.body.id);
      assert.equal(done.status, 'successful', done.job_explanation);
      assert.ok(await exists(path.join(manualDir, 'mine.yml')), 'the manual directory keeps its files');
      assert.equal(await exists(path.join(manualDir, '.git')), false, 'and was not synced into');
      assert.ok(await exists(path.join(t.env.projectsRoot, toGit.body.local_path, 'site.yml')));

      const keepCheckout = await t.patch(`/api/v2/projects/${created.body.id}/`, { scm_type: '' }, { as: betaAdmin });
      assert.equal(keepCheckout.status, 400);
      assert.match(keepCheckout.body.local_path[0], /checkouts of source control projects/);
      const taken = await t.patch(`/api/v2/projects/${created.body.id}/`, { scm_type: '', local_path: 'alpha-manual' }, { as: betaAdmin });
      assert.equal(taken.status, 400);
      const back = await t.patch(`/api/v2/projects/${created.body.id}/`, { scm_type: '', local_path: 'beta-manual' }, { as: betaAdmin });
      assert.equal(back.status, 200, back.text);
      assert.deepEqual([back.body.scm_type, back.body.scm_url, back.body.local_path], ['', '', 'beta-manual']);
      assert.deepEqual((await t.get(`/api/v2/projects/${created.body.id}/playbooks/`, { as: betaAdmin })).body, ['mine.yml']);
    });

    it('two projects given one directory by hand: the sync refuses to touch it', async () => {
      const res = await t.post('/api/v2/projects/', { name: 'Beta twin', organization: beta, scm_type: 'git', scm_url: repo.bare }, { as: betaAdmin });
      assert.equal((await firstProjectUpdate(t, res.body.id)).status, 'successful');
      await t.db.query('UPDATE projects SET local_path = $2 WHERE id = $1', [res.body.id, site.local_path]);
      const done = await syncNow(res.body.id);
      assert.equal(done.status, 'failed');
      assert.match(done.job_explanation, /used by another project/);
      assert.ok(await exists(path.join(t.env.projectsRoot, site.local_path, 'site.yml')));
    });
  });

  describe('links', () => {
    it('a manual directory linking out of the projects root is refused unless it leads into an allowed directory', async () => {
      const secrets = await mkdtemp(path.join(tmpdir(), 'secrets-'));
      await writeFile(path.join(secrets, 'secret.yml'), PLAYBOOK);
      await symlink(secrets, path.join(t.env.projectsRoot, 'to-secrets'));
      await symlink('/etc', path.join(t.env.projectsRoot, 'to-etc'));
      await symlink(path.join(t.env.projectsRoot, site.local_path), path.join(t.env.projectsRoot, 'to-site'));
      for (const local_path of ['to-secrets', 'to-etc', 'to-site']) {
        const res = await t.post('/api/v2/projects/', { name: 'Beta link', organization: beta, local_path }, { as: betaAdmin });
        assert.equal(res.status, 400, local_path);
        assert.match(res.body.local_path[0], /is a link/, local_path);
      }
      assert.equal(await projectNamed('Beta link'), 0);

      const shared = path.join(allowed, 'shared-playbooks');
      await mkdir(shared);
      await writeFile(path.join(shared, 'shared.yml'), PLAYBOOK);
      await symlink(shared, path.join(t.env.projectsRoot, 'to-shared'));
      const ok = await t.post('/api/v2/projects/', { name: 'Beta link', organization: beta, local_path: 'to-shared' }, { as: betaAdmin });
      assert.equal(ok.status, 201, ok.text);
      assert.deepEqual((await t.get(`/api/v2/projects/${ok.body.id}/playbooks/`, { as: betaAdmin })).body, ['shared.yml']);
    });

    it('a directory turned into a link after save is not followed: no playbooks listed, no template, no job', async () => {
      const secrets = await mkdtemp(path.join(tmpdir(), 'secrets-'));
      await writeFile(path.join(secrets, 'secret.yml'), PLAYBOOK);
      const dir = path.join(t.env.projectsRoot, 'beta-swapped');
      await mkdir(dir);
      await writeFile(path.join(dir, 'fine.yml'), PLAYBOOK);
      const res = await t.post('/api/v2/projects/', { name: 'Beta swapped', organization: beta, local_path: 'beta-swapped' }, { as: betaAdmin });
      assert.equal(res.status, 201, res.text);
      await run('rm', ['-r', dir]);
      await symlink(secrets, dir);
      assert.deepEqual((await t.get(`/api/v2/projects/${res.body.id}/playbooks/`, { as: betaAdmin })).body, []);
      assert.deepEqual((await t.get(`/api/v2/projects/${res.body.id}/inventories/`, { as: betaAdmin })).body, []);
      const jt = await t.post('/api/v2/job_templates/', { name: 'Secret', project: res.body.id, inventory, playbook: 'secret.yml' });
      assert.equal(jt.status, 400);
      assert.ok(jt.body.playbook);
    });
  });

  describe('the source control secret', () => {
    it('is in no environment git gets: the askpass program asks the service for it', async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'askpass-'));
      const auth = await gitAuthentication(dir, { username: 'robot', password: 'sup3r-secret-token' });
      try {
        assert.ok(!JSON.stringify(auth.env).includes('sup3r-secret-token'));
        assert.deepEqual(auth.secrets, ['sup3r-secret-token']);
        const ask = async (prompt: string) => (await run(auth.env.GIT_ASKPASS, [prompt], { env: auth.env })).stdout;
        assert.equal(await ask("Username for 'https://example.com': "), 'robot\n');
        assert.equal(await ask("Password for 'https://robot@example.com': "), 'sup3r-secret-token\n');
        const files = await readdir(dir);
        for (const file of files.filter((f) => !f.endsWith('.sock'))) {
          assert.ok(!(await run('cat', [path.join(dir, file)])).stdout.includes('sup3r-secret-token'), file);
        }
      } finally {
        await auth.close();
      }
      await assert.rejects(run(auth.env.GIT_ASKPASS, ['Password: '], { env: auth.env }), 'nothing answers once the sync is over');
    });
  });

  it('no attack left a marker', async () => {
    assert.ok(attackCount > 20);
    assert.deepEqual(await readdir(markers), []);
  });
});
