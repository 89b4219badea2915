import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundFailed, OutboundRefused, resolveAllowedHost, sendOutbound, type OutboundPolicy } from '../src/net/outbound.ts';

const open: OutboundPolicy = { allowed: ['127.0.0.1'] };
const closed: OutboundPolicy = { allowed: [] };

async function refused(promise: Promise<unknown>, pattern: RegExp) {
  await assert.rejects(promise, (err: Error) => err instanceof OutboundRefused && pattern.test(err.message));
}

describe('outbound request guard', () => {
  let server: http.Server;
  let base: string;
  const seen: Array<{ method: string; url: string; body: string }> = [];

  before(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/to-metadata') return void res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      if (req.url === '/to-ok') return void res.writeHead(307, { location: '/ok' }).end();
      if (req.url === '/see-other') return void res.writeHead(303, { location: '/ok' }).end();
      if (req.url === '/big') return void res.end('x'.repeat(5000));
      if (req.url === '/silent') return;
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, body });
        res.setHeader('x-answer', 'yes');
        res.end(`answered ${req.method} ${req.url}`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  it('sends to an allowed address and answers status, headers and body', async () => {
    const answer = await sendOutbound({ url: `${base}/hook`, method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } }, open);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['x-answer'], 'yes');
    assert.equal(answer.body, 'answered POST /hook');
    assert.deepEqual(seen.at(-1), { method: 'POST', url: '/hook', body: '{"a":1}' });
  });

  it('refuses loopback, private, link-local and metadata addresses unless allowed', async () => {
    const port = new URL(base).port;
    const before = seen.length;
    await refused(sendOutbound({ url: `${base}/x` }, closed), /127\.0\.0\.1 is a private, loopback/);
    await refused(sendOutbound({ url: `http://localhost:${port}/x` }, closed), /localhost \(/);
    await refused(sendOutbound({ url: `http://[::ffff:127.0.0.1]:${port}/x` }, closed), /OUTBOUND_URL_ALLOWLIST/);
    await refused(sendOutbound({ url: `http://0x7f000001:${port}/x` }, closed), /127\.0\.0\.1/);
    await refused(sendOutbound({ url: `http://[::1]:${port}/x` }, closed), /::1/);
    for (const address of ['10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.100.100.200', '0.0.0.0', '224.0.0.1']) {
      await refused(sendOutbound({ url: `http://${address}/` }, closed), new RegExp(address.replace(/\./g, '\\.')));
    }
    assert.equal(seen.length, before, 'nothing reached the server');
    assert.equal((await sendOutbound({ url: `http://localhost:${port}/named` }, { allowed: ['localhost'] })).status, 200);
    assert.equal((await sendOutbound({ url: `${base}/network` }, { allowed: ['127.0.0.0/8'] })).status, 200);
  });

  it('refuses other schemes and invalid URLs', async () => {
    await refused(sendOutbound({ url: 'file:///etc/passwd' }, open), /only http and https/);
    await refused(sendOutbound({ url: 'gopher://127.0.0.1/' }, open), /only http and https/);
    await refused(sendOutbound({ url: 'not a url' }, open), /not a valid URL/);
  });

  it('checks every redirect again', async () => {
    await refused(sendOutbound({ url: `${base}/to-metadata` }, open), /169\.254\.169\.254/);
    const kept = await sendOutbound({ url: `${base}/to-ok`, method: 'POST', body: 'kept' }, open);
    assert.equal(kept.body, 'answered POST /ok');
    assert.equal(seen.at(-1)!.body, 'kept');
    assert.equal((await sendOutbound({ url: `${base}/see-other`, method: 'POST', body: 'dropped' }, open)).body, 'answered GET /ok');
    assert.equal((await sendOutbound({ url: `${base}/to-ok`, maxRedirects: 0 }, open)).status, 307);
  });

  it('fails cleanly on timeouts, refused connections, unknown names and oversized answers', async () => {
    await assert.rejects(sendOutbound({ url: `${base}/silent`, timeoutMs: 200 }, open), (e: Error) => e instanceof OutboundFailed && /within 200 ms/.test(e.message));
    await assert.rejects(sendOutbound({ url: 'http://127.0.0.1:1/' }, open), (e: Error) => e instanceof OutboundFailed && /ECONNREFUSED/.test(e.message));
    await assert.rejects(sendOutbound({ url: 'http://no-such-host.invalid/' }, open), (e: Error) => e instanceof OutboundFailed && /resolve/.test(e.message));
    await assert.rejects(sendOutbound({ url: `${base}/big`, maxResponseBytes: 100 }, open), (e: Error) => e instanceof OutboundFailed && /larger than 100 bytes/.test(e.message));
  });

  it('resolves host names for other protocols through the same policy', async () => {
    assert.equal(await resolveAllowedHost('localhost', { allowed: ['localhost'] }), '127.0.0.1');
    await refused(resolveAllowedHost('localhost', closed), /localhost/);
    await refused(resolveAllowedHost('169.254.169.254', { allowed: ['*.example.com'] }), /169\.254/);
  });
});
