// Commit statuses of workflow jobs launched by webhooks, posted to a status API on 127.0.0.1.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestApp, newOrg, newUser, type TestApp } from './helpers/app.ts';
import { eventually } from './helpers/jobs.ts';
import { hmacHex } from './helpers/webhook-deliveries.ts';
import { answer, finished, makeWorkflow } from './helpers/workflows.ts';

interface Received {
  url: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

describe('commit statuses of webhook workflow jobs', () => {
  let t: TestApp;
  let server: http.Server;
  let origin: string;
  const received: Received[] = [];
  let org: number;
  let token: number;

  const keyOf = async (id: number) => (await t.get(`/api/v2/workflow_job_templates/${id}/webhook_key/`)).body.webhook_key as string;
  const requestsFor = (sha: string) => received.filter((r) => r.url.includes(sha));

  before(async () => {
    t = await createTestApp();
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        received.push({ url: req.url!, headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString() || 'null') });
        res.writeHead(201, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    org = (await newOrg(t)).id;
    const type = (await t.get('/api/v2/credential_types/?namespace=github_token')).body.results[0].id;
    token = (await t.post('/api/v2/credentials/', { name: 'github-pat', organization: org, credential_type: type, inputs: { token: 'github-secret-token' } })).body.id;
    assert.equal((await t.patch('/api/v2/settings/security/', { OUTBOUND_URL_ALLOWLIST: ['127.0.0.1'] })).status, 200);
  });
  after(async () => {
    await t.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('a webhook credential the caller may not use is refused', async () => {
    const theirOrg = (await newOrg(t)).id;
    const outsider = await newUser(t, { admin: [theirOrg] });
    const own = await t.post('/api/v2/workflow_job_templates/', { name: `own-${randomUUID()}`, organization: theirOrg, webhook_service: 'github' }, { as: outsider });
    assert.equal(own.status, 201, own.text);
    const res = await t.post('/api/v2/workflow_job_templates/', { name: `stolen-${randomUUID()}`, organization: theirOrg, webhook_service: 'github', webhook_credential: token }, { as: outsider });
    assert.equal(res.status, 403, res.text);
    const patched = await t.patch(`/api/v2/workflow_job_templates/${own.body.id}/`, { webhook_credential: token }, { as: outsider });
    assert.equal(patched.status, 403, patched.text);
    assert.equal((await t.get(`/api/v2/workflow_job_templates/?name__startswith=stolen-`)).body.count, 0);
    assert.equal((await t.get(`/api/v2/workflow_job_templates/${own.body.id}/`)).body.webhook_credential, null);
  });

  it('posts pending while the workflow job runs, then success, for it and for its relaunch', async () => {
    const wf = await makeWorkflow(t, org, `status-${randomUUID()}`, { gate: {} }, [], { webhook_service: 'github', webhook_credential: token });
    const sha = '7'.repeat(40);
    const body = JSON.stringify({ action: 'opened', pull_request: { head: { sha }, statuses_url: `${origin}/repos/o/r/statuses/${sha}` } });
    const headers = { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-github-delivery': randomUUID(), 'x-hub-signature-256': `sha256=${hmacHex('sha256', await keyOf(wf.id), body)}` };
    const res = await t.request('POST', `/api/v2/workflow_job_templates/${wf.id}/github/`, { as: null, payload: body, headers });
    assert.equal(res.status, 202, res.text);
    const statesFor = async (count: number, what: string) => await eventually(async () => (requestsFor(sha).length >= count ? requestsFor(sha) : null), 30_000, what) as Received[];
    assert.deepEqual((await statesFor(1, 'pending posted')).map((r) => r.body.state), ['pending']);
    await answer(t, res.body.job, 'gate', 'approve');
    const job = await finished(t, res.body.job);
    assert.equal(job.status, 'successful', job.job_explanation);
    assert.equal(job.webhook_credential, token);
    const posted = await statesFor(2, 'both statuses posted');
    assert.deepEqual(posted.map((r) => r.body.state), ['pending', 'success']);
    for (const request of posted) {
      assert.equal(request.url, `/repos/o/r/statuses/${sha}`);
      assert.equal(request.headers.authorization, 'token github-secret-token');
      assert.match(request.body.target_url, new RegExp(`/#/jobs/workflow/${job.id}$`));
    }
    assert.ok(!(await t.get(`/api/v2/workflow_jobs/${job.id}/`)).text.includes('github-secret-token'));

    const relaunched = await t.post(`/api/v2/workflow_jobs/${job.id}/relaunch/`, {});
    assert.equal(relaunched.status, 201, relaunched.text);
    assert.deepEqual([relaunched.body.launch_type, relaunched.body.webhook_service, relaunched.body.webhook_guid], ['relaunch', 'github', job.webhook_guid]);
    await statesFor(3, 'the relaunch pending');
    await answer(t, relaunched.body.id, 'gate', 'approve');
    assert.equal((await finished(t, relaunched.body.id)).status, 'successful');
    const again = (await statesFor(4, 'the relaunch\'s statuses')).slice(2);
    assert.deepEqual(again.map((r) => r.body.state), ['pending', 'success']);
    assert.match(again[1].body.target_url, new RegExp(`/#/jobs/workflow/${relaunched.body.id}$`));
  });
});
