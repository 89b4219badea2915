import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { createTestApp, ADMIN, type TestApp } from './helpers/app.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { runCollectionPlay } from './helpers/awx-collection.ts';

const task = (name: string, module: string, args: object) => ({ name, [`awx.awx.${module}`]: args });

/** The awx.awx collection's job_template module sets, changes and clears a template's webhook service and credential. */
describe('the awx.awx collection and template webhooks', () => {
  let t: TestApp;
  let host: string;
  let repo: GitRepository;
  const template = { name: 'Hooked', project: 'Hook Project', inventory: 'Hook Inventory', playbook: 'site.yml' };

  const stored = async () => {
    const body = (await t.get('/api/v2/job_templates/?name=Hooked')).body.results[0];
    const key = (await t.get(`/api/v2/job_templates/${body.id}/webhook_key/`)).body.webhook_key;
    return { body, key };
  };

  before(async () => {
    t = await createTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    host = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    repo = await makeRepository({ 'site.yml': '- hosts: all\n  gather_facts: false\n  tasks: []\n' });
    const setup = await runCollectionPlay(host, ADMIN, [
      task('organization', 'organization', { name: 'Hook Org' }),
      task('github token', 'credential', { name: 'gh-pat', organization: 'Hook Org', credential_type: 'GitHub Personal Access Token', inputs: { token: 'ghp-secret' } }),
      task('gitlab token', 'credential', { name: 'gl-pat', organization: 'Hook Org', credential_type: 'GitLab Personal Access Token', inputs: { token: 'glpat-secret' } }),
      task('project', 'project', { name: 'Hook Project', organization: 'Hook Org', scm_type: 'git', scm_url: `file://${repo.bare}`, wait: true }),
      task('inventory', 'inventory', { name: 'Hook Inventory', organization: 'Hook Org' }),
    ]);
    assert.deepEqual(setup.failures, []);
  });
  after(async () => {
    await t.close();
    await repo.remove();
  });

  it('sets webhook_service and webhook_credential, idempotently; a key is made and receives deliveries', async () => {
    const run = await runCollectionPlay(host, ADMIN, [
      task('create', 'job_template', { ...template, webhook_service: 'github', webhook_credential: 'gh-pat' }),
      task('again', 'job_template', { ...template, webhook_service: 'github', webhook_credential: 'gh-pat' }),
    ]);
    assert.deepEqual(run.failures, []);
    assert.deepEqual(run.tasks.map((x) => x.changed), [true, false]);
    const { body, key } = await stored();
    assert.equal(body.webhook_service, 'github');
    assert.equal(body.webhook_credential, (await t.get('/api/v2/credentials/?name=gh-pat')).body.results[0].id);
    assert.match(key, /^[A-Za-z0-9]{50}$/);

    const payload = JSON.stringify({ ref: 'refs/heads/main', after: 'f'.repeat(40), repository: {} });
    const res = await fetch(`${host}${body.related.webhook_receiver}`, {
      method: 'POST',
      body: payload,
      headers: {
        'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': randomUUID(),
        'x-hub-signature-256': `sha256=${createHmac('sha256', key).update(payload).digest('hex')}`,
      },
    });
    assert.equal(res.status, 202, await res.text());
  });

  it('changes the service with a matching credential, refuses a mismatch, and clears both', async () => {
    const before = (await stored()).key;
    const mismatch = await runCollectionPlay(host, ADMIN, [task('mismatch', 'job_template', { ...template, webhook_service: 'gitlab', webhook_credential: 'gh-pat' })]);
    assert.equal(mismatch.failures.length, 1);
    assert.match(JSON.stringify(mismatch.tasks[0].result), /Must match the selected webhook service/);
    assert.equal((await stored()).body.webhook_service, 'github');

    const gitlab = await runCollectionPlay(host, ADMIN, [task('gitlab', 'job_template', { ...template, webhook_service: 'gitlab', webhook_credential: 'gl-pat' })]);
    assert.deepEqual(gitlab.failures, []);
    const changed = await stored();
    assert.equal(changed.body.webhook_service, 'gitlab');
    assert.notEqual(changed.key, before, 'a new service, a new key');

    const cleared = await runCollectionPlay(host, ADMIN, [task('clear', 'job_template', { ...template, webhook_service: '' })]);
    assert.deepEqual(cleared.failures, []);
    const none = await stored();
    assert.deepEqual([none.body.webhook_service, none.body.webhook_credential, none.key], ['', null, '']);
  });
});
