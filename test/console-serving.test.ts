import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { CONSOLE_DIST } from '../src/server/console.ts';

describe('web console serving', () => {
  let t: TestApp;
  before(async () => {
    assert.ok(existsSync(path.join(CONSOLE_DIST, 'index.html')), 'the console is built (npm run build)');
    t = await createTestApp();
  });
  after(() => t.close());

  it('answers the console page at / and at any page address, without credentials', async () => {
    for (const url of ['/', '/inventories', '/jobs/12/output', '/login?next=%2Fhosts']) {
      const res = await t.get(url, { as: null });
      assert.equal(res.status, 200, url);
      assert.match(res.headers['content-type'] as string, /^text\/html/);
      assert.match(res.text, /<div id="root"><\/div>/);
      assert.equal(res.headers['cache-control'], 'no-cache');
      assert.match(res.headers['content-security-policy'] as string, /script-src 'self'/);
      assert.match(res.headers['content-security-policy'] as string, /frame-ancestors 'none'/);
    }
  });

  it('keeps unknown API, websocket and sign-in paths a JSON 404', async () => {
    for (const url of ['/api/v2/nothing_here/', '/api/nothing', '/sso/nothing/']) {
      const res = await t.get(url, { as: null });
      assert.equal(res.status, 404, url);
      assert.deepEqual(res.body, { detail: 'Not found.' });
    }
    // /assistant/ belongs to the assistant service (none runs here): JSON, never the console's page.
    const assistant = await t.get('/assistant/x', { as: null });
    assert.equal(assistant.status, 503);
    assert.match(assistant.body.detail, /assistant service is not running/);
    const post = await t.post('/inventories', {}, { as: null });
    assert.equal(post.status, 404);
  });

  it('serves the hashed assets compressed and cached for good, and nothing else from disk', async () => {
    const name = readdirSync(path.join(CONSOLE_DIST, 'assets')).find((f) => f.endsWith('.js'))!;
    const res = await t.get(`/assets/${name}`, { as: null, headers: { 'accept-encoding': 'gzip' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-encoding'], 'gzip');
    assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.match(res.headers['content-type'] as string, /^text\/javascript/);
    for (const url of ['/assets/..%2F..%2Fpackage.json', '/assets/%2e%2e%2findex.html', '/assets/missing.js', '/assets/../../package.json']) {
      const other = await t.get(url, { as: null });
      // A path that normalizes out of /assets/ is a page address: the console page, never the file.
      if (other.status === 200) assert.match(other.text, /<div id="root"><\/div>/, url);
      assert.doesNotMatch(other.text, /"name": "drover"/, url);
    }
  });

  it('lists the index page of the console in index.html with module scripts from /assets/ only', async () => {
    const res = await t.get('/', { as: null });
    const scripts = [...res.text.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1]);
    assert.ok(scripts.length >= 1);
    for (const src of scripts) assert.match(src, /^\/assets\/[\w.-]+\.js$/);
  });
});
