import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { grant, newOrg, newUser, type User } from './helpers/factories.ts';
import { eventually } from './helpers/jobs.ts';
import { startHttpPeer, type HttpPeer, type Received } from './helpers/notification-peers.ts';
import { sendOutbound, type OutboundPolicy } from '../src/net/outbound.ts';
import { CallerCheckFailed, MainServiceCallers } from '../src/assistant/callers.ts';
import { LlmClient } from '../src/assistant/llm-client.ts';
import { MainOpenApi } from '../src/assistant/main-openapi.ts';

const loopback: OutboundPolicy = { allowed: ['127.0.0.1', 'localhost'] };
const CREDENTIALS = ['authorization', 'cookie', 'proxy-authorization', 'x-api-key', 'x-custom'];
const SENT = {
  authorization: 'Bearer s3cr3t-token', cookie: 'session=s3cr3t', 'proxy-authorization': 'Basic s3cr3t',
  'X-Api-Key': 's3cr3t-key', 'x-custom': 'mine', accept: 'application/json', 'user-agent': 'Drover',
};

const lastAt = (peer: HttpPeer, path: string): Received => {
  const hit = peer.received.filter((r) => r.url === path).at(-1);
  assert.ok(hit, `${path} was reached`);
  return hit;
};
const carriesNone = (request: Received) => {
  for (const name of CREDENTIALS) assert.equal(request.headers[name], undefined, `${name} reached ${request.url}`);
  assert.doesNotMatch(JSON.stringify(request.headers), /s3cr3t|mine/);
};

/**
 * Redirects of outbound requests (notifications, dynamic survey choices and every other caller of
 * the guard): to another origin (scheme, host or port) they carry no Authorization, Cookie,
 * Proxy-Authorization or header of the caller's own; on the same origin they keep them. The second
 * origin is another loopback server on another port.
 */
describe('outbound redirects', () => {
  let first: HttpPeer;
  let second: HttpPeer;

  before(async () => {
    [first, second] = await Promise.all([startHttpPeer(), startHttpPeer()]);
  });
  after(async () => {
    await Promise.all([first?.close(), second?.close()]);
  });

  const redirect = (peer: HttpPeer, path: string, location: string, status = 302) =>
    peer.answers.set(path, { status, body: '', headers: { location } });

  describe('the guard', () => {
    it('drops credentials and custom headers on a redirect to another port, keeping accept and user-agent', async () => {
      redirect(first, '/away', `${second.base}/landing`);
      const answer = await sendOutbound({ url: `${first.base}/away`, headers: SENT }, loopback);
      assert.equal(answer.status, 200);
      assert.equal(lastAt(first, '/away').headers['x-api-key'], 's3cr3t-key', 'the first origin got them');
      const landed = lastAt(second, '/landing');
      carriesNone(landed);
      assert.equal(landed.headers.accept, 'application/json');
      assert.equal(landed.headers['user-agent'], 'Drover');
    });

    it('keeps them on a same-origin redirect, relative or absolute', async () => {
      redirect(first, '/relative', '/stay');
      redirect(first, '/absolute', `${first.base}/stay-too`, 301);
      await sendOutbound({ url: `${first.base}/relative`, headers: SENT }, loopback);
      await sendOutbound({ url: `${first.base}/absolute`, headers: SENT }, loopback);
      for (const path of ['/stay', '/stay-too']) {
        const kept = lastAt(first, path);
        assert.equal(kept.headers.authorization, SENT.authorization);
        assert.equal(kept.headers.cookie, SENT.cookie);
        assert.equal(kept.headers['proxy-authorization'], SENT['proxy-authorization']);
        assert.equal(kept.headers['x-api-key'], 's3cr3t-key');
        assert.equal(kept.headers['x-custom'], 'mine');
      }
    });

    it('a host name for the same address is another origin; once dropped, a hop back does not restore them', async () => {
      const port = new URL(first.base).port;
      redirect(first, '/by-name', `http://localhost:${port}/named`);
      await sendOutbound({ url: `${first.base}/by-name`, headers: SENT }, loopback);
      carriesNone(lastAt(first, '/named'));

      redirect(first, '/out', `${second.base}/bounce`);
      redirect(second, '/bounce', `${first.base}/back`);
      await sendOutbound({ url: `${first.base}/out`, headers: SENT }, loopback);
      carriesNone(lastAt(second, '/bounce'));
      carriesNone(lastAt(first, '/back'));
    });

    it('a 307 to another origin keeps the body and its type but not the credentials; a 303 drops the body and its type', async () => {
      redirect(first, '/post-away', `${second.base}/posted`, 307);
      await sendOutbound({ url: `${first.base}/post-away`, method: 'POST', body: '{"a":1}', headers: { ...SENT, 'content-type': 'application/json' } }, loopback);
      const posted = lastAt(second, '/posted');
      assert.equal(posted.method, 'POST');
      assert.equal(posted.body, '{"a":1}');
      assert.equal(posted.headers['content-type'], 'application/json');
      carriesNone(posted);

      redirect(first, '/see-other', '/seen', 303);
      await sendOutbound({ url: `${first.base}/see-other`, method: 'POST', body: 'x', headers: { ...SENT, 'content-type': 'text/plain' } }, loopback);
      const seen = lastAt(first, '/seen');
      assert.equal(seen.method, 'GET');
      assert.equal(seen.headers['content-type'], undefined);
      assert.equal(seen.headers.authorization, SENT.authorization, 'same origin: kept');
    });
  });

  describe("the assistant's own requests", () => {
    it("a caller's credentials go to the main service only: its checks follow no redirect", async () => {
      redirect(first, '/api/v2/me/', `${second.base}/me-elsewhere`);
      redirect(first, '/api/v2/openapi.json', `${first.base}/openapi-moved`);
      const credentials = { authorization: SENT.authorization, cookie: SENT.cookie, address: '203.0.113.9' };
      await assert.rejects(new MainServiceCallers(first.base).check(credentials), (err: Error) => err instanceof CallerCheckFailed && /302/.test(err.message));
      await new MainOpenApi(first.base).refresh(credentials);
      assert.equal(second.received.filter((r) => r.url === '/me-elsewhere').length, 0);
      assert.equal(first.received.filter((r) => r.url === '/openapi-moved').length, 0);
    });

    it("the language model's key does not follow a redirect to another origin", async () => {
      redirect(first, '/v1/models', `${second.base}/v1/models-elsewhere`);
      await new LlmClient({ baseUrl: `${first.base}/v1`, model: 'm', embeddingModel: 'e', apiKey: 's3cr3t-token' }).hasModel();
      assert.equal(lastAt(first, '/v1/models').headers.authorization, 'Bearer s3cr3t-token');
      carriesNone(lastAt(second, '/v1/models-elsewhere'));
    });
  });

  describe('through the API', () => {
    let t: TestApp;
    let org: number;
    let orgAdmin: User;
    let executor: User;

    before(async () => {
      t = await createTestApp();
      assert.equal((await t.patch('/api/v2/settings/security/', { OUTBOUND_URL_ALLOWLIST: ['127.0.0.1'] })).status, 200);
      org = (await newOrg(t)).id;
      orgAdmin = await newUser(t, { admin: org });
      executor = await newUser(t, { member: org });
    });
    after(async () => {
      await t?.close();
    });

    const notify = async (url: string) => {
      const made = await t.post('/api/v2/notification_templates/', {
        name: `redirected-${Math.random().toString(36).slice(2)}`, organization: org, notification_type: 'webhook',
        notification_configuration: { url, headers: { 'X-Api-Key': 's3cr3t-key', 'X-Custom': 'mine' }, username: 'hookuser', password: 's3cr3t-pw' },
      }, { as: orgAdmin });
      assert.equal(made.status, 201, made.text);
      const started = await t.post(`/api/v2/notification_templates/${made.body.id}/test/`, {}, { as: orgAdmin });
      assert.equal(started.status, 202, started.text);
      const sent = await eventually(async () => {
        const res = await t.get(`/api/v2/notifications/${started.body.notification}/`);
        return res.body.status !== 'pending' && res.body;
      }, 30_000, 'notification sent');
      assert.equal(sent.status, 'successful', sent.error);
    };

    it("a webhook notification's password and headers do not follow a redirect to another origin", async () => {
      redirect(first, '/hook', `${second.base}/caught`, 307);
      await notify(`${first.base}/hook`);
      assert.equal(lastAt(first, '/hook').headers['x-api-key'], 's3cr3t-key');
      const caught = lastAt(second, '/caught');
      assert.equal(caught.method, 'POST');
      carriesNone(caught);
      assert.doesNotMatch(JSON.stringify(caught.headers), /aG9va3VzZXI6czNjcjN0LXB3/, 'no Basic credentials');

      redirect(first, '/hook-moved', '/hook-here', 307);
      await notify(`${first.base}/hook-moved`);
      const here = lastAt(first, '/hook-here');
      assert.equal(here.headers['x-api-key'], 's3cr3t-key');
      assert.equal(here.headers.authorization, `Basic ${Buffer.from('hookuser:s3cr3t-pw').toString('base64')}`);
    });

    it("a plain member resolving survey choices sends the admin's header tokens only to the configured origin", async () => {
      const workflow = await t.post('/api/v2/workflow_job_templates/', { name: 'redirected-choices', organization: org }, { as: orgAdmin });
      assert.equal(workflow.status, 201, workflow.text);
      const base = `/api/v2/workflow_job_templates/${workflow.body.id}/`;
      await grant(t, executor, base, 'execute_role');
      const question = (variable: string, url: string) => ({
        question_name: variable, variable, type: 'multiplechoice', required: false,
        dynamic_choices: { enabled: true, source_type: 'api_endpoint', url, cache_ttl: 0, headers: { Authorization: 'Bearer s3cr3t-token', 'X-Custom': 'mine' } },
      });
      redirect(first, '/choices', `${second.base}/stolen`);
      second.answers.set('/stolen', { status: 200, body: '["away"]' });
      redirect(first, '/choices-moved', '/choices-here');
      first.answers.set('/choices-here', { status: 200, body: '["here"]' });
      const spec = { name: 'S', description: '', spec: [question('away', `${first.base}/choices`), question('here', `${first.base}/choices-moved`)] };
      assert.equal((await t.post(`${base}survey_spec/`, spec, { as: orgAdmin })).status, 200);

      const resolved = await t.post(`${base}survey_spec/dynamic_choices/`, { variables: ['away', 'here'] }, { as: executor });
      assert.equal(resolved.status, 200, resolved.text);
      assert.deepEqual(resolved.body.away.choices, ['away']);
      assert.deepEqual(resolved.body.here.choices, ['here']);
      carriesNone(lastAt(second, '/stolen'));
      assert.equal(lastAt(first, '/choices-here').headers.authorization, 'Bearer s3cr3t-token');
      assert.equal(lastAt(first, '/choices-here').headers['x-custom'], 'mine');
    });
  });
});
