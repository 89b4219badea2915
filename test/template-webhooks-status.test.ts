import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestApp, newOrg, type TestApp } from './helpers/app.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { eventually, firstProjectUpdate, waitForRun } from './helpers/jobs.ts';
import { deliver, hmacHex, pushHeaders, pushPayload } from './helpers/webhook-deliveries.ts';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** A code host's status API on 127.0.0.1: records every request; paths under /fail/ answer 500. */
async function startStatusApi() {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString() || 'null') });
      res.writeHead(req.url!.startsWith('/fail/') ? 500 : 201, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { received, origin, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('commit statuses of webhook jobs', () => {
  let t: TestApp;
  let repo: GitRepository;
  let api: Awaited<ReturnType<typeof startStatusApi>>;
  let base: Record<string, unknown>;
  let tokens: Record<string, number>;
  let org: any;

  const keyOf = async (id: number) => (await t.get(`/api/v2/job_templates/${id}/webhook_key/`)).body.webhook_key as string;
  const hooked = async (service: string, credential: number | null) => {
    const res = await t.post('/api/v2/job_templates/', { ...base, name: `status-${randomUUID()}`, webhook_service: service, webhook_credential: credential });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const requestsFor = (sha: string) => api.received.filter((r) => r.url.includes(sha));
  /** The statuses posted for a commit from the `from`-th on, once the final one is there. */
  const settled = (sha: string, final: string, from = 0) =>
    eventually(async () => {
      const posted = requestsFor(sha).slice(from);
      return posted.some((r) => r.body.state === final) ? posted : null;
    }, 30_000, `the final status of ${sha}`) as Promise<Received[]>;
  /** A run that ends before the status loop first looks at it gets only its final state. */
  const expected = <T>(posted: Received[], states: T[]): T[] => (posted.length === states.length ? states : states.slice(1));
  /** A GitHub pull request delivery whose statuses_url is on the status API. */
  const pullRequest = async (jt: any, sha: string, prefix = '') => {
    const body = JSON.stringify({ action: 'opened', pull_request: { head: { sha }, statuses_url: `${api.origin}${prefix}/repos/o/r/statuses/${sha}` } });
    const headers = { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-github-delivery': randomUUID(), 'x-hub-signature-256': `sha256=${hmacHex('sha256', await keyOf(jt.id), body)}` };
    const res = await deliver(t, jt.id, 'github', body, headers);
    assert.equal(res.status, 202, res.text);
    return res.body.job as number;
  };

  before(async () => {
    t = await createTestApp();
    api = await startStatusApi();
    repo = await makeRepository({ 'ok.yml': '- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: msg=hi\n' });
    org = await newOrg(t);
    const project = (await t.post('/api/v2/projects/', { name: 'Plays', organization: org.id, scm_type: 'git', scm_url: `file://${repo.bare}` })).body.id;
    await firstProjectUpdate(t, project);
    const inventory = (await t.post('/api/v2/inventories/', { name: 'Local', organization: org.id, variables: 'ansible_connection: local\nansible_python_interpreter: /usr/bin/python3' })).body.id;
    await t.post('/api/v2/hosts/', { name: 'h1', inventory });
    base = { project, inventory, playbook: 'ok.yml' };
    tokens = {};
    for (const service of ['github', 'gitlab', 'bitbucket_dc', 'gitea', 'azure_devops']) {
      const type = (await t.get(`/api/v2/credential_types/?namespace=${service}_token`)).body.results[0].id;
      tokens[service] = (await t.post('/api/v2/credentials/', { name: `${service}-pat`, organization: org.id, credential_type: type, inputs: { token: `${service}-secret-token` } })).body.id;
    }
    const allowed = await t.patch('/api/v2/settings/security/', { OUTBOUND_URL_ALLOWLIST: ['127.0.0.1'] });
    assert.equal(allowed.status, 200, allowed.text);
  });
  after(async () => {
    await t.close();
    await api.close();
    await repo.remove();
  });

  it('GitHub: pending when the job starts, then success, to the pull request\'s statuses_url with the token', async () => {
    const jt = await hooked('github', tokens.github);
    const sha = '1'.repeat(40);
    const jobId = await pullRequest(jt, sha);
    const job = await waitForRun(t, `/api/v2/jobs/${jobId}/`, 120_000);
    assert.equal(job.status, 'successful', job.job_explanation);
    const posted = await settled(sha, 'success');
    assert.deepEqual(posted.map((r) => r.body.state), expected(posted, ['pending', 'success']));
    for (const request of posted) {
      assert.equal(request.method, 'POST');
      assert.equal(request.url, `/repos/o/r/statuses/${sha}`);
      assert.equal(request.headers.authorization, 'token github-secret-token');
      assert.equal(request.body.context, 'ansible/awx');
      assert.match(request.body.target_url, new RegExp(`/#/jobs/playbook/${jobId}$`));
    }
    assert.equal(job.webhook_credential, tokens.github);
    assert.ok(!(await t.get(`/api/v2/jobs/${jobId}/`)).text.includes('github-secret-token'));

    // A relaunch keeps the webhook fields (AWX) and reports its own status on the same commit.
    const relaunched = await t.post(`/api/v2/jobs/${jobId}/relaunch/`, {});
    assert.equal(relaunched.status, 201, relaunched.text);
    assert.deepEqual([relaunched.body.launch_type, relaunched.body.webhook_service, relaunched.body.webhook_guid], ['relaunch', 'github', job.webhook_guid]);
    await waitForRun(t, `/api/v2/jobs/${relaunched.body.id}/`, 120_000);
    const again = await settled(sha, 'success', posted.length);
    assert.deepEqual(again.map((r) => r.body.state), expected(again, ['pending', 'success']));
    assert.match(again.at(-1)!.body.target_url, new RegExp(`/#/jobs/playbook/${relaunched.body.id}$`));
  });

  it('GitLab: the project\'s statuses API on its host, with PRIVATE-TOKEN', async () => {
    const jt = await hooked('gitlab', tokens.gitlab);
    const sha = '2'.repeat(40);
    const body = JSON.stringify(pushPayload('gitlab', sha, { project: { id: 42, web_url: `${api.origin}/o/r` } }));
    const res = await deliver(t, jt.id, 'gitlab', body, pushHeaders('gitlab', await keyOf(jt.id), body, randomUUID()));
    assert.equal(res.status, 202, res.text);
    assert.equal((await waitForRun(t, `/api/v2/jobs/${res.body.job}/`, 120_000)).status, 'successful');
    const posted = await settled(sha, 'success');
    assert.deepEqual(posted.map((r) => [r.url, r.headers['private-token'], r.body.state]), expected(posted, [
      [`/api/v4/projects/42/statuses/${sha}`, 'gitlab-secret-token', 'pending'],
      [`/api/v4/projects/42/statuses/${sha}`, 'gitlab-secret-token', 'success'],
    ]));
  });

  it('Bitbucket Data Center, Gitea and Azure DevOps: each service\'s status API and authentication', async () => {
    const cases = [
      {
        service: 'bitbucket_dc' as const, sha: '7'.repeat(40),
        extra: (o: string) => ({ repository: { links: { self: [{ href: `${o}/projects/O/repos/r/browse` }] } } }),
        url: (sha: string) => `/rest/build-status/1.0/commits/${sha}`, auth: 'Bearer bitbucket_dc-secret-token', states: ['INPROGRESS', 'SUCCESSFUL'],
      },
      {
        service: 'gitea' as const, sha: '8'.repeat(40),
        extra: (o: string) => ({ repository: { full_name: 'o/r', html_url: `${o}/o/r` } }),
        url: (sha: string) => `/api/v1/repos/o/r/statuses/${sha}`, auth: 'token gitea-secret-token', states: ['pending', 'success'],
      },
      {
        service: 'azure_devops' as const, sha: '9'.repeat(40),
        extra: (o: string, sha: string) => ({ resource: { refUpdates: [{ newObjectId: sha }], repository: { url: `${o}/org/proj/_apis/git/repositories/abc-123` } } }),
        url: (sha: string) => `/org/proj/_apis/git/repositories/abc-123/commits/${sha}/statuses?api-version=7.1`,
        auth: `Basic ${Buffer.from(':azure_devops-secret-token').toString('base64')}`, states: ['pending', 'succeeded'],
      },
    ];
    await Promise.all(cases.map(async ({ service, sha, extra, url, auth, states }) => {
      const jt = await hooked(service, tokens[service]);
      const body = JSON.stringify(pushPayload(service, sha, extra(api.origin, sha)));
      const res = await deliver(t, jt.id, service, body, pushHeaders(service, await keyOf(jt.id), body, randomUUID()));
      assert.equal(res.status, 202, res.text);
      assert.equal((await waitForRun(t, `/api/v2/jobs/${res.body.job}/`, 120_000)).status, 'successful');
      const posted = await settled(sha, states[1]);
      assert.deepEqual(posted.map((r) => [r.url, r.headers.authorization, r.body.state]), expected(posted, states).map((state) => [url(sha), auth, state]), service);
    }));
  });

  it('without a webhook credential nothing is posted', async () => {
    const jt = await hooked('github', null);
    const sha = '3'.repeat(40);
    const jobId = await pullRequest(jt, sha);
    assert.equal((await waitForRun(t, `/api/v2/jobs/${jobId}/`, 120_000)).status, 'successful');
    // A job with a credential finishing after this one shows the loop has passed over it.
    const later = await pullRequest(await hooked('github', tokens.github), '4'.repeat(40));
    await waitForRun(t, `/api/v2/jobs/${later}/`, 120_000);
    await settled('4'.repeat(40), 'success');
    assert.equal(requestsFor(sha).length, 0);
  });

  it('a failing status API or a refused address never fails the job: the job notes it', async () => {
    const jt = await hooked('github', tokens.github);
    const sha = '5'.repeat(40);
    const jobId = await pullRequest(jt, sha, '/fail');
    const done = await waitForRun(t, `/api/v2/jobs/${jobId}/`, 120_000);
    assert.equal(done.status, 'successful');
    const job = await eventually(async () => {
      const body = (await t.get(`/api/v2/jobs/${jobId}/`)).body;
      return body.job_explanation.includes('(successful)') ? body : null;
    }, 30_000, 'the failure noted');
    assert.equal(job.status, 'successful');
    assert.match(job.job_explanation, /Posting the commit status \(successful\) to github failed: the service answered 500/);
    assert.ok(!job.job_explanation.includes('github-secret-token'));

    // Loopback is refused once the allow list no longer names it.
    assert.equal((await t.patch('/api/v2/settings/security/', { OUTBOUND_URL_ALLOWLIST: [] })).status, 200);
    const refusedSha = '6'.repeat(40);
    const refusedJob = await pullRequest(jt, refusedSha);
    await waitForRun(t, `/api/v2/jobs/${refusedJob}/`, 120_000);
    const noted = await eventually(async () => {
      const body = (await t.get(`/api/v2/jobs/${refusedJob}/`)).body;
      return body.job_explanation.includes('(successful)') ? body : null;
    }, 30_000, 'the refusal noted');
    assert.equal(noted.status, 'successful');
    assert.match(noted.job_explanation, /OUTBOUND_URL_ALLOWLIST|Refused/);
    assert.equal(requestsFor(refusedSha).length, 0);
  });
});
