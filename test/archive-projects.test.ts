// Archive projects (scm_type "archive"): a tar or zip file downloaded through the outbound guard
// from a loopback HTTP server, unpacked safely, its SHA-1 the revision (docs/projects.md#archive-projects).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import tarStream from 'tar-stream';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { newInventory, newJobTemplate, newOrg, newUser, type User } from './helpers/factories.ts';
import { waitForRun } from './helpers/jobs.ts';

type TarEntry = { name: string; content?: string; type?: 'file' | 'directory' | 'symlink' | 'link' | 'fifo'; linkname?: string; mode?: number };

function tar(entries: TarEntry[]): Promise<Buffer> {
  const pack = tarStream.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
  const done = new Promise<Buffer>((resolve) => pack.on('end', () => resolve(Buffer.concat(chunks))));
  for (const e of entries) pack.entry({ name: e.name, type: e.type ?? 'file', linkname: e.linkname, mode: e.mode ?? (e.type === 'directory' ? 0o755 : 0o644) }, e.content ?? '');
  pack.finalize();
  return done;
}

const play = (message: string) => `- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: msg="content={{ '${message}' }}"\n`;
const sha1 = (bytes: Buffer) => createHash('sha1').update(bytes).digest('hex');

describe('archive projects', () => {
  let t: TestApp;
  let server: Server;
  let base = '';
  let work = '';
  const files = new Map<string, Buffer>();
  const requests: { url: string; authorization?: string }[] = [];
  let org: number;
  let outsiderAdmin: User;
  let member: User;

  const project = async (name: string, url: string, fields: Record<string, unknown> = {}) => {
    const res = await t.post('/api/v2/projects/', { name, organization: org, scm_type: 'archive', scm_url: url, ...fields });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const update = async (id: number) => {
    const res = await t.post(`/api/v2/projects/${id}/update/`, {});
    assert.equal(res.status, 202, res.text);
    return waitForRun(t, `/api/v2/project_updates/${res.body.id}/`);
  };
  const lastUpdate = async (id: number) => {
    const first = (await t.get(`/api/v2/projects/${id}/project_updates/`)).body.results[0];
    return waitForRun(t, first.url);
  };

  before(async () => {
    t = await createTestApp();
    work = await mkdtemp(path.join(tmpdir(), 'drover-archives-'));
    server = createServer((req, res) => {
      requests.push({ url: req.url!, authorization: req.headers.authorization });
      if (req.url === '/private.tar.gz' && req.headers.authorization !== `Basic ${Buffer.from('reader:s3cret-archive').toString('base64')}`) {
        res.writeHead(401).end();
        return;
      }
      const body = files.get(req.url!.split('?')[0]);
      if (!body) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    org = (await newOrg(t)).id;
    outsiderAdmin = await newUser(t, { admin: (await newOrg(t)).id });
    member = await newUser(t, { member: org });

    files.set('/site.tar.gz', gzipSync(await tar([
      { name: 'site-1.0/', type: 'directory' },
      { name: 'site-1.0/site.yml', content: play('first') },
      { name: 'site-1.0/inventories/hosts.ini', content: 'here\n' },
      { name: 'site-1.0/run.sh', content: '#!/bin/sh\n', mode: 0o755 },
      { name: 'site-1.0/docs', type: 'symlink', linkname: 'inventories' },
    ])));
    const zipDir = path.join(work, 'zipped');
    await mkdir(path.join(zipDir, 'plays'), { recursive: true });
    await writeFile(path.join(zipDir, 'plays', 'one.yml'), play('zip'));
    await writeFile(path.join(zipDir, 'two.yml'), play('zip'));
    execFileSync('python3', ['-m', 'zipfile', '-c', path.join(work, 'site.zip'), 'plays', 'two.yml'], { cwd: zipDir });
    files.set('/site.zip', await readFile(path.join(work, 'site.zip')));
    files.set('/site.tar.xz', execFileSync('xz', ['-c'], { input: await tar([{ name: 'x.yml', content: play('xz') }]) }));
    files.set('/private.tar.gz', gzipSync(await tar([{ name: 'private.yml', content: play('private') }])));
    files.set('/traversal.tar', await tar([{ name: 'ok.yml', content: play('x') }, { name: '../../escape.yml', content: 'escaped' }]));
    files.set('/absolute.tar', await tar([{ name: '/tmp/absolute-escape.yml', content: 'escaped' }]));
    files.set('/link-out.tar', await tar([{ name: 'etc', type: 'symlink', linkname: '/etc' }]));
    files.set('/link-up.tar', await tar([{ name: 'a/', type: 'directory' }, { name: 'a/up', type: 'symlink', linkname: '../../..' }]));
    files.set('/through-link.tar', await tar([
      { name: 'real/', type: 'directory' },
      { name: 'a/', type: 'directory' },
      { name: 'a/b', type: 'symlink', linkname: '..' },
      { name: 'a/b/c.yml', content: 'through' },
    ]));
    files.set('/fifo.tar', await tar([{ name: 'pipe', type: 'fifo' }]));
    files.set('/bomb.tar.gz', gzipSync(await tar([{ name: 'zeros', content: '\0'.repeat(3 * 1024 * 1024) }])));
    files.set('/not-an-archive.txt', Buffer.from('hello, this is text and no archive at all\n'.repeat(20)));
  });

  after(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await t?.close();
    await rm(work, { recursive: true, force: true });
  });

  it('refuses a loopback URL until OUTBOUND_URL_ALLOWLIST names it', async () => {
    const p = await project('Guarded', `${base}/site.tar.gz`);
    const refused = await lastUpdate(p.id);
    assert.equal(refused.status, 'failed');
    assert.match(refused.job_explanation, /^The archive could not be downloaded: Refused: .*OUTBOUND_URL_ALLOWLIST/);
    assert.equal(requests.length, 0, 'nothing was sent');
    assert.equal((await t.patch('/api/v2/settings/security/', { OUTBOUND_URL_ALLOWLIST: ['127.0.0.1'] })).status, 200);
  });

  it('unpacks a tar.gz without its top directory, records the SHA-1 as revision, and a job runs its playbook', async () => {
    const p = await project('Site archive', `${base}/site.tar.gz`);
    const done = await lastUpdate(p.id);
    assert.equal(done.status, 'successful', done.job_explanation);
    const revision = sha1(files.get('/site.tar.gz')!);
    assert.equal(done.scm_revision, revision);
    const stored = (await t.get(`/api/v2/projects/${p.id}/`)).body;
    assert.equal(stored.scm_revision, revision);
    assert.equal(stored.scm_type, 'archive');
    assert.deepEqual((await t.get(`/api/v2/projects/${p.id}/playbooks/`)).body, ['site.yml']);
    const checkout = path.join(t.env.projectsRoot, stored.local_path);
    assert.equal((await readFile(path.join(checkout, 'inventories', 'hosts.ini'), 'utf8')), 'here\n');
    assert.ok(existsSync(path.join(checkout, 'docs', 'hosts.ini')), 'a link inside the project is kept');

    const inventory = (await newInventory(t, org, { hosts: ['here'] })).id;
    const template = await newJobTemplate(t, { project: p.id, inventory, playbook: 'site.yml' });
    // The URL now serves other bytes: the job runs the revision the update recorded, kept on this node.
    const original = files.get('/site.tar.gz')!;
    files.set('/site.tar.gz', gzipSync(await tar([{ name: 'site.yml', content: play('second') }])));
    try {
      const launched = await t.post(`/api/v2/job_templates/${template.id}/launch/`, {});
      assert.equal(launched.status, 201, launched.text);
      const job = await waitForRun(t, `/api/v2/jobs/${launched.body.id}/`, 120_000);
      assert.equal(job.status, 'successful', job.job_explanation);
      assert.equal(job.scm_revision, revision);
      assert.match((await t.get(`/api/v2/jobs/${job.id}/stdout/?format=txt`)).text, /content=first/);
      // A node without the kept file (another node: docs/cluster.md) downloads it, and refuses other bytes.
      await rm(path.join(t.env.projectsRoot, '.__archives'), { recursive: true, force: true });
      await rm(path.join(t.env.projectsRoot, '.__revisions'), { recursive: true, force: true });
      const refused = await t.post(`/api/v2/job_templates/${template.id}/launch/`, {});
      const stopped = await waitForRun(t, `/api/v2/jobs/${refused.body.id}/`, 120_000);
      assert.equal(stopped.status, 'failed');
      assert.equal(stopped.job_explanation, `The archive of the project "Site archive" is now at revision ${sha1(files.get('/site.tar.gz')!)} on node ${job.execution_node}, not at the recorded revision ${revision}: the run was stopped rather than run other files. Update the project and run again.`);
      files.set('/site.tar.gz', original);
      const again = await t.post(`/api/v2/job_templates/${template.id}/launch/`, {});
      const fetched = await waitForRun(t, `/api/v2/jobs/${again.body.id}/`, 120_000);
      assert.equal(fetched.status, 'successful', fetched.job_explanation);
      assert.match((await t.get(`/api/v2/jobs/${fetched.id}/stdout/?format=txt`)).text, /content=first/);
    } finally {
      files.set('/site.tar.gz', original);
    }
  });

  it('unpacks a zip and an xz-compressed tar', async () => {
    const zip = await project('Zip archive', `${base}/site.zip`);
    const zipped = await lastUpdate(zip.id);
    assert.equal(zipped.status, 'successful', zipped.job_explanation);
    assert.equal(zipped.scm_revision, sha1(files.get('/site.zip')!));
    assert.deepEqual((await t.get(`/api/v2/projects/${zip.id}/playbooks/`)).body.sort(), ['plays/one.yml', 'two.yml']);
    const xz = await project('Xz archive', `${base}/site.tar.xz`);
    const unxz = await lastUpdate(xz.id);
    assert.equal(unxz.status, 'successful', unxz.job_explanation);
    assert.deepEqual((await t.get(`/api/v2/projects/${xz.id}/playbooks/`)).body, ['x.yml']);
  });

  it('sends the Source Control credential as Basic authentication, and never shows it', async () => {
    const scm = (await t.get('/api/v2/credential_types/?namespace=scm')).body.results[0].id;
    const credential = await t.post('/api/v2/credentials/', { name: 'archive reader', organization: org, credential_type: scm, inputs: { username: 'reader', password: 's3cret-archive' } });
    assert.equal(credential.status, 201, credential.text);
    const p = await project('Private archive', `${base}/private.tar.gz`, { credential: credential.body.id });
    const done = await lastUpdate(p.id);
    assert.equal(done.status, 'successful', done.job_explanation);
    assert.deepEqual((await t.get(`/api/v2/projects/${p.id}/playbooks/`)).body, ['private.yml']);
    const stdout = (await t.get(`/api/v2/project_updates/${done.id}/stdout/?format=txt`)).text;
    assert.doesNotMatch(stdout + JSON.stringify(done), /s3cret-archive/);
    assert.doesNotMatch(JSON.stringify((await t.get('/api/v2/activity_stream/?page_size=200')).body), /s3cret-archive/);

    const anonymous = await project('Private, no credential', `${base}/private.tar.gz`);
    const refused = await lastUpdate(anonymous.id);
    assert.equal(refused.status, 'failed');
    assert.equal(refused.job_explanation, `The archive could not be downloaded: ${base}/private.tar.gz answered HTTP 401.`);
  });

  it('refuses archives that reach out of the project, and keeps the last good files', async () => {
    const p = await project('Hostile archive', `${base}/site.tar.gz`);
    assert.equal((await lastUpdate(p.id)).status, 'successful');
    const expected: Record<string, RegExp> = {
      '/traversal.tar': /^The archive holds a path outside the project: "\.\.\/\.\.\/escape\.yml"\.$/,
      '/absolute.tar': /^The archive holds a path outside the project: "\/tmp\/absolute-escape\.yml"\.$/,
      '/link-out.tar': /^The archive's link "etc" points out of the project \("\/etc"\)\.$/,
      // Its single top directory "a" is stripped, as AWX does.
      '/link-up.tar': /^The archive's link "up" points out of the project \("\.\.\/\.\.\/\.\."\)\.$/,
      '/through-link.tar': /^The archive writes "a\/b\/c\.yml" through a link\.$/,
      '/fifo.tar': /^The archive holds "pipe", a fifo: only files, directories and links are unpacked\.$/,
      '/not-an-archive.txt': /^The file is not a tar or zip archive/,
    };
    for (const [file, message] of Object.entries(expected)) {
      assert.equal((await t.patch(`/api/v2/projects/${p.id}/`, { scm_url: `${base}${file}` })).status, 200);
      const failed = await lastUpdate(p.id);
      assert.equal(failed.status, 'failed', file);
      assert.match(failed.job_explanation, message, file);
      assert.deepEqual((await t.get(`/api/v2/projects/${p.id}/playbooks/`)).body, ['site.yml'], `${file}: the last good files stay`);
    }
    assert.ok(!existsSync(path.join(t.env.projectsRoot, '..', 'escape.yml')) && !existsSync(path.join(t.env.projectsRoot, 'escape.yml')));
    assert.ok(!existsSync('/tmp/absolute-escape.yml'));
  });

  it('caps the download and the unpacked size', async () => {
    const p = await project('Big archive', `${base}/bomb.tar.gz`);
    assert.equal((await t.patch('/api/v2/settings/jobs/', { PROJECT_ARCHIVE_MAX_UNPACKED_BYTES: 1024 * 1024 })).status, 200);
    try {
      const bomb = await update(p.id);
      assert.equal(bomb.status, 'failed');
      assert.equal(bomb.job_explanation, 'The archive unpacks to more than 1048576 bytes.');
      assert.equal((await t.patch('/api/v2/settings/jobs/', { PROJECT_ARCHIVE_MAX_BYTES: 1000 })).status, 200);
      const big = await update(p.id);
      assert.equal(big.status, 'failed');
      assert.match(big.job_explanation, /^The archive could not be downloaded: The answer from 127\.0\.0\.1:\d+ is larger than 1000 bytes\.$/);
    } finally {
      assert.equal((await t.patch('/api/v2/settings/jobs/', { PROJECT_ARCHIVE_MAX_BYTES: 104_857_600, PROJECT_ARCHIVE_MAX_UNPACKED_BYTES: 524_288_000 })).status, 200);
    }
  });

  it('checks the source when saving: an http(s) URL, no branch or refspec; nothing stored when refused', async () => {
    const count = async () => (await t.get('/api/v2/projects/?scm_type=archive')).body.count;
    const before = await count();
    for (const [body, field, message] of [
      [{ scm_url: 'ftp://example.com/site.tar.gz' }, 'scm_url', 'An archive project needs the http:// or https:// URL of a tar or zip file.'],
      [{ scm_url: '' }, 'scm_url', 'An archive project needs the http:// or https:// URL of a tar or zip file.'],
      [{ scm_url: `${base}/site.tar.gz`, scm_branch: 'main' }, 'scm_branch', 'Archive projects do not use scm_branch.'],
      [{ scm_url: `${base}/site.tar.gz`, scm_refspec: 'refs/x' }, 'scm_refspec', 'Archive projects do not use scm_refspec.'],
    ] as const) {
      const res = await t.post('/api/v2/projects/', { name: 'refused archive', organization: org, scm_type: 'archive', ...body });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body[field], [message]);
    }
    assert.equal(await count(), before);
  });

  it('a plain member and another organization\'s admin can neither create nor repoint an archive project', async () => {
    const p = await project('Owned archive', `${base}/site.tar.gz`);
    for (const who of [member, outsiderAdmin]) {
      const created = await t.post('/api/v2/projects/', { name: `by ${who.username}`, organization: org, scm_type: 'archive', scm_url: `${base}/site.tar.gz` }, { as: who });
      assert.equal(created.status, 403, created.text);
      const patched = await t.patch(`/api/v2/projects/${p.id}/`, { scm_url: `${base}/traversal.tar` }, { as: who });
      assert.ok([403, 404].includes(patched.status), patched.text);
      const updated = await t.post(`/api/v2/projects/${p.id}/update/`, {}, { as: who });
      assert.ok([403, 404].includes(updated.status), updated.text);
    }
    assert.equal((await t.get(`/api/v2/projects/${p.id}/`)).body.scm_url, `${base}/site.tar.gz`);
    assert.equal((await t.get('/api/v2/projects/?name__startswith=by%20')).body.count, 0);
  });
});
