import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import { VERSION } from '../src/version.ts';
import { ADMIN, basicAuth, createTestApp, type TestApp } from './helpers/app.ts';
import { startAssistant, type TestAssistant } from './helpers/assistant.ts';
import { newUser, type User } from './helpers/factories.ts';
import { startLlmServer, type LlmServer } from './helpers/llm-server.ts';
import { refusingUrl } from './helpers/opa-server.ts';
import { spawnService, type ServiceProcess } from './helpers/service-process.ts';
import { standaloneValues } from './helpers/standalone.ts';

const frame = (event: object) => `data: ${JSON.stringify(event)}\n\n`;

/** Reads an event stream until `until` has arrived; answers what arrived so far. */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, until: string, seen = ''): Promise<string> {
  const decoder = new TextDecoder();
  while (!seen.includes(until)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before ${JSON.stringify(until)}:\n${seen}`);
    seen += decoder.decode(value, { stream: true });
  }
  return seen;
}

/** Sends raw bytes to the port and answers the whole response (Connection: close: the server ends the connection). */
async function rawRequest(port: number, text: string): Promise<string> {
  const socket = net.connect(port, '127.0.0.1');
  await once(socket, 'connect');
  // Not end(): a client that stops sending has gone away, and a proxied answer would not be sent.
  socket.write(text);
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The assistant service around its chat: health, index, its API document, the first-start index,
 * the main service's proxy under /assistant (streaming, credentials, CSRF, the assistant down,
 * paths that try to leave the prefix), and `drover serve` starting `drover assistant` as a child.
 */
describe('assistant service', { timeout: 240_000 }, () => {
  let t: TestApp;
  let llm: LlmServer;
  let assistant: TestAssistant;
  let mainUrl: string;
  let mainPort: number;
  let user: User;
  let token: string;

  const call = (target: string, path: string, init: RequestInit = {}) => fetch(`${target}${path}`, init);
  const admin = { authorization: basicAuth(ADMIN) };

  before(async () => {
    t = await createTestApp({}, { dispatcher: false });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    mainPort = (t.app.server.address() as { port: number }).port;
    mainUrl = `http://127.0.0.1:${mainPort}`;
    llm = await startLlmServer();
    assistant = await startAssistant({ mainUrl, llmUrl: llm.url, db: t.db, emptyIndex: true, holdIndex: true });
    t.env.assistant.url = assistant.url;
    user = await newUser(t);
    token = (await t.post('/api/v2/tokens/', { scope: 'write' }, { as: user })).body.token;
  });
  after(async () => {
    await assistant?.close();
    await llm?.close();
    await t?.close();
  });

  it('indexes at first start when the index is empty, in the background: health answers meanwhile', async () => {
    assert.deepEqual(assistant.retrieval.indexCalls, [{ rebuild: false }]);
    const health = await call(assistant.url, '/api/v1/health');
    assert.equal(health.status, 200);
    assert.equal((await health.json()).status, 'ok');
    assistant.retrieval.holdIndex = false;
    assistant.retrieval.emptyAnswer = null;
    assistant.retrieval.releaseIndex();
    await assistant.firstIndex;
    assert.ok(assistant.log.some((line) => /^Indexed the documentation for the assistant: \d+ passages/.test(line)), assistant.log.join('\n'));
  });

  it('health: ok while the model is listed and the store answers, degraded otherwise; no credentials needed', async () => {
    const health = async (target = assistant) => {
      const res = await call(target.url, '/api/v1/health');
      assert.equal(res.status, 200);
      return res.json();
    };
    assert.deepEqual(await health(), { status: 'ok', version: VERSION, llm_backend: true, vector_store: true, model: 'llama3.1' });
    assert.ok(llm.requests.some((r) => r.method === 'GET' && r.path === '/v1/models'));

    llm.models = ['mistral:latest'];
    try {
      assert.deepEqual(await health(), { status: 'degraded', version: VERSION, llm_backend: false, vector_store: true, model: 'llama3.1' });
    } finally {
      llm.models = ['llama3.1:latest'];
    }
    assistant.retrieval.healthAnswer = false;
    try {
      assert.deepEqual(await health(), { status: 'degraded', version: VERSION, llm_backend: true, vector_store: false, model: 'llama3.1' });
    } finally {
      assistant.retrieval.healthAnswer = null;
    }
    const down = await startAssistant({ mainUrl, llmUrl: await refusingUrl(), db: t.db, model: 'qwen2.5' });
    try {
      assert.deepEqual(await health(down), { status: 'degraded', version: VERSION, llm_backend: false, vector_store: true, model: 'qwen2.5' });
    } finally {
      await down.close();
    }
  });

  it('index: 401 without or with bad credentials, 403 for a plain user, 422 for a bad rebuild, the outcome for a superuser', async () => {
    const index = (query: string, headers: Record<string, string>) => call(assistant.url, `/api/v1/index${query}`, { method: 'POST', headers });
    const before = assistant.retrieval.indexCalls.length;
    assert.equal((await index('', {})).status, 401);
    assert.equal((await index('', { authorization: 'Bearer nope' })).status, 401);
    const plain = await index('?rebuild=true', { authorization: `Bearer ${token}` });
    assert.equal(plain.status, 403);
    assert.equal(typeof (await plain.json()).detail, 'string');
    for (const bad of ['?rebuild=yes', '?rebuild=', '?rebuild=true&rebuild=false', '?rebuild=%00']) {
      const res = await index(bad, admin);
      assert.equal(res.status, 422, bad);
      assert.deepEqual((await res.json()).detail[0].loc, ['query', 'rebuild']);
    }
    assert.equal(assistant.retrieval.indexCalls.length, before);

    let res = await index('', admin);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { indexed_chunks: 0, rebuild: false });
    res = await index('?rebuild=true', admin);
    assert.deepEqual(await res.json(), { indexed_chunks: 4, rebuild: true });
    res = await index('?rebuild=false', { authorization: basicAuth(ADMIN) });
    assert.deepEqual(await res.json(), { indexed_chunks: 0, rebuild: false });
    assert.deepEqual(assistant.retrieval.indexCalls.slice(before), [{ rebuild: false }, { rebuild: true }, { rebuild: false }]);

    assistant.retrieval.failing = true;
    try {
      res = await index('?rebuild=true', admin);
      assert.equal(res.status, 503);
      assert.match((await res.json()).detail, /could not be indexed/);
    } finally {
      assistant.retrieval.failing = false;
    }
  });

  it('publishes its OpenAPI document and explorer, with the server the proxy serves it under', async () => {
    const res = await call(assistant.url, '/api/v1/openapi.json');
    assert.equal(res.status, 200);
    const document = await res.json();
    assert.equal(document.info.version, VERSION);
    assert.deepEqual(Object.keys(document.paths).sort(), ['/api/v1/chat', '/api/v1/health', '/api/v1/index']);
    assert.deepEqual(document.paths['/api/v1/chat'].post.requestBody.content['application/json'].schema.required, ['message']);
    assert.ok(document.paths['/api/v1/chat'].post.responses['200'].content['text/event-stream']);
    assert.equal(document.paths['/api/v1/index'].post.parameters[0].name, 'rebuild');
    assert.deepEqual(document.servers, [{ url: '/' }]);
    const docs = await call(assistant.url, '/api/v1/docs');
    assert.equal(docs.status, 200);
    assert.match(docs.headers.get('content-type') ?? '', /text\/html/);

    const proxied = await t.get('/assistant/api/v1/openapi.json', { as: null });
    assert.equal(proxied.status, 200);
    assert.deepEqual(proxied.body.servers, [{ url: '/assistant' }]);
    const explorer = await t.get('/assistant/api/v1/docs/json', { as: null });
    assert.deepEqual(explorer.body.servers, [{ url: '/assistant' }]);
  });

  it('is served under /assistant by the main service: health, and a chat streamed event by event with a token', async () => {
    const health = await t.get('/assistant/api/v1/health', { as: null });
    assert.equal(health.status, 200);
    assert.equal(health.body.status, 'ok');

    llm.answer({ before: ['first'], after: [' second'] });
    const res = await call(mainUrl, '/assistant/api/v1/chat', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'How do I relaunch a job?', context: { page: '/jobs' } }),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const reader = res.body!.getReader();
    // The model holds its answer after the first token: it arrives through the proxy before the rest exists.
    let seen = await readUntil(reader, frame({ token: 'first' }));
    assert.equal(seen, frame({ token: 'first' }));
    llm.release();
    seen = await readUntil(reader, '"done":true', seen);
    const sources = assistant.retrieval.searches.at(-1)!.answer.map(({ source, title, heading }) => ({ source, title, heading }));
    assert.equal(seen, frame({ token: 'first' }) + frame({ token: ' second' }) + frame({ done: true, sources }));
    assert.equal(llm.chats.at(-1)!.body.messages.at(-1).content, 'How do I relaunch a job?');
  });

  it('through the proxy, a browser session needs the CSRF check of the main service; with it the chat answers', async () => {
    llm.answer({ tokens: ['hi'] });
    const session = await t.login(user);
    const cookie = [...session.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ');
    const post = (headers: Record<string, string>) =>
      call(mainUrl, '/assistant/api/v1/chat', { method: 'POST', headers: { cookie, 'content-type': 'application/json', ...headers }, body: JSON.stringify({ message: 'hi' }) });
    const asked = llm.chats.length;
    const noOrigin = await post({ 'x-csrftoken': session.cookies.get('csrftoken')! });
    assert.equal(noOrigin.status, 403);
    assert.match((await noOrigin.json()).detail, /CSRF Failed: Referer checking failed/);
    const noToken = await post({ origin: mainUrl });
    assert.equal(noToken.status, 403);
    assert.match((await noToken.json()).detail, /CSRF Failed/);
    const foreign = await post({ origin: 'https://evil.example', 'x-csrftoken': session.cookies.get('csrftoken')! });
    assert.equal(foreign.status, 403);
    assert.equal(llm.chats.length, asked);

    const res = await post({ origin: mainUrl, 'x-csrftoken': session.cookies.get('csrftoken')! });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), frame({ token: 'hi' }) + frame({ done: true, sources: [] }));
    // Anonymous through the proxy: the assistant refuses.
    const anonymous = await call(mainUrl, '/assistant/api/v1/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"message":"hi"}' });
    assert.equal(anonymous.status, 401);
  });

  it('answers 503 when the assistant is not running or not configured, 502 when it answers badly', async () => {
    const saved = t.env.assistant.url;
    const garbage = net.createServer((socket) => socket.end('not http at all\r\n\r\n'));
    garbage.listen(0, '127.0.0.1');
    await once(garbage, 'listening');
    try {
      t.env.assistant.url = await refusingUrl();
      let res = await t.get('/assistant/api/v1/health', { as: null });
      assert.equal(res.status, 503);
      assert.match(res.body.detail, /assistant service is not running or not reachable/);
      const chat = await call(mainUrl, '/assistant/api/v1/chat', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'hi' }),
      });
      assert.equal(chat.status, 503);
      assert.match((await chat.json()).detail, /not running or not reachable/);

      t.env.assistant.url = null;
      res = await t.get('/assistant/api/v1/health', { as: null });
      assert.equal(res.status, 503);
      assert.match(res.body.detail, /SVC_ASSISTANT_ENABLED/);

      t.env.assistant.url = `http://127.0.0.1:${(garbage.address() as net.AddressInfo).port}`;
      res = await t.get('/assistant/api/v1/health', { as: null });
      assert.equal(res.status, 502);
      assert.match(res.body.detail, /did not answer properly/);
    } finally {
      t.env.assistant.url = saved;
      garbage.close();
    }
  });

  it('keeps requests inside /assistant/: dot segments, encoded slashes and smuggled requests are refused', async () => {
    const get = (path: string) => rawRequest(mainPort, `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
    for (const path of [
      '/assistant/../api/v2/me/',
      '/assistant/api/v1/../../api/v2/me/',
      '/assistant/%2e%2e/api/v2/me/',
      '/assistant/..%2fapi/v2/me/',
      '/assistant/..%5capi/v2/me/',
      '/assistant/..\\api/v2/me/',
      '/assistant//evil.example/api/v1/health',
      '/assistant/%2f%2fevil.example/api/v1/health',
    ]) {
      const answer = await get(path);
      assert.match(answer, /^HTTP\/1\.1 (400|404) /, `${path}: ${answer.split('\r\n')[0]}`);
      assert.ok(!answer.includes('"username"'), path);
    }
    // Encoded slashes stay in the path the assistant gets (a path of its own it does not know), never another address.
    assert.ok(assistant.paths.includes('/%2f%2fevil.example/api/v1/health'), assistant.paths.join('\n'));
    const seen = assistant.paths.length;
    // Content-Length beside Transfer-Encoding: Node refuses the request before anything is proxied.
    const smuggled = await rawRequest(
      mainPort,
      `POST /assistant/api/v1/chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
    );
    assert.match(smuggled, /^HTTP\/1\.1 400 /);
    assert.deepEqual(assistant.paths.slice(seen), []);
    // A well-formed path still goes through.
    assert.match(await get('/assistant/api/v1/health'), /^HTTP\/1\.1 200 /);
  });

  describe('drover serve with the assistant as a child process', () => {
    let service: ServiceProcess;
    const waitFor = async (pattern: RegExp, from = 0): Promise<RegExpMatchArray> => {
      const match = () => service.output.join('').slice(from).match(pattern);
      while (!match()) {
        if (service.child.exitCode !== null) throw new Error(`the service exited:\n${service.output.join('')}`);
        await once(service.child.stdout!, 'data');
      }
      return match()!;
    };

    after(async () => {
      await service?.stop();
    });

    it('starts `drover assistant`, serves it under /assistant, starts it again when it dies and stops it on exit', async () => {
      const { values } = await standaloneValues('assistant', {
        NGINX_HTTP_PORT: '0',
        NGINX_HTTPS_PORT: '0',
        SVC_LISTEN_ADDRESS: '127.0.0.1',
        SVC_CREATE_DEMO_DATA: 'false',
        SVC_LOG_LEVEL: 'warn',
        SVC_ADMIN_PASSWORD: 'assistant-admin-pw',
        SVC_ASSISTANT_ENABLED: 'true',
        SVC_ASSISTANT_PORT: '0',
        // Without /v1: the service adds it.
        SVC_ASSISTANT_LLM_BASE_URL: llm.url.replace(/\/v1$/, ''),
        SVC_ASSISTANT_LLM_MODEL: 'llama3.1',
        SVC_ASSISTANT_LLM_API_KEY: 'sk-process-secret',
      });
      service = await spawnService(values, { username: 'admin', password: 'assistant-admin-pw' });
      const first = await waitFor(/Started the assistant service \(pid (\d+)\)/);
      await waitFor(/The assistant service answers on http:\/\/127\.0\.0\.1:\d+/);
      const health = await service.api('GET', '/assistant/api/v1/health');
      assert.equal(health.status, 200, health.text);
      assert.deepEqual(health.body, { status: 'ok', version: VERSION, llm_backend: true, vector_store: true, model: 'llama3.1' });

      const mark = service.output.join('').length;
      process.kill(Number(first[1]), 'SIGKILL');
      await waitFor(/The assistant service exited \(SIGKILL\); starting it again/, mark);
      const second = await waitFor(/Started the assistant service \(pid (\d+)\)/, mark);
      await waitFor(/The assistant service answers on/, mark);
      assert.equal((await service.api('GET', '/assistant/api/v1/health')).status, 200);

      await service.stop();
      assert.throws(() => process.kill(Number(second[1]), 0), { code: 'ESRCH' });
      assert.ok(!service.output.join('').includes('sk-process-secret'));
    });
  });
});
