import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newUser, type TestApp } from './helpers/app.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

/** The path and parameters of a next/previous link. */
function link(url: string | null): { path: string; params: Record<string, string> } | null {
  if (url === null) return null;
  const parsed = new URL(url, 'http://x');
  assert.equal(parsed.origin, 'http://x', 'links are relative');
  return { path: parsed.pathname, params: Object.fromEntries(parsed.searchParams) };
}

describe('pagination', () => {
  let t: TestApp;
  const TOTAL = 231; // Default + 230 generated organizations
  let alphaId: number;

  before(async () => {
    t = await createTestApp();
    await t.db.query<AnyRow>(`INSERT INTO organizations (name) SELECT 'org-' || lpad(g::text, 3, '0') FROM generate_series(1, 230) g`);
    // Bulk-made organizations get the two roles this test relies on, linked as the role graph links them.
    await t.db.query<AnyRow>(`INSERT INTO roles (role_field, content_type, object_id)
      SELECT f, 'organization', id FROM organizations, unnest(ARRAY['member_role', 'read_role']) f WHERE name LIKE 'org-%'`);
    await t.db.query<AnyRow>(`INSERT INTO role_ancestors (descendent_id, ancestor_id)
      SELECT id, id FROM roles WHERE content_type = 'organization' AND role_field IN ('member_role', 'read_role')
      ON CONFLICT DO NOTHING`);
    await t.db.query<AnyRow>(`INSERT INTO role_parents (role_id, parent_id)
      SELECT r.id, m.id FROM roles r JOIN roles m ON m.content_type = r.content_type AND m.object_id = r.object_id AND m.role_field = 'member_role'
      JOIN organizations o ON o.id = r.object_id WHERE r.content_type = 'organization' AND r.role_field = 'read_role' AND o.name LIKE 'org-%'`);
    await t.db.query<AnyRow>(`INSERT INTO role_ancestors (descendent_id, ancestor_id) SELECT role_id, parent_id FROM role_parents
      WHERE role_id IN (SELECT id FROM roles WHERE content_type = 'organization') ON CONFLICT DO NOTHING`);
    alphaId = (await t.db.query<AnyRow>(`SELECT id FROM organizations WHERE name = 'org-001'`))[0].id;
    await t.db.query<AnyRow>(`INSERT INTO teams (name, organization_id) SELECT 'team-' || lpad(g::text, 2, '0'), $1 FROM generate_series(1, 30) g`, [alphaId]);
  });
  after(() => t.close());

  it('answers 25 per page by default', async () => {
    const res = await t.get('/api/v2/organizations/');
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body), ['count', 'next', 'previous', 'results']);
    assert.equal(res.body.count, TOTAL);
    assert.equal(res.body.results.length, 25);
    assert.equal(res.body.next, '/api/v2/organizations/?page=2');
    assert.equal(res.body.previous, null);
    assert.equal(res.body.results[0].name, 'Default');
  });

  it('caps page_size at 200 and shows the capped size in next', async () => {
    const res = await t.get('/api/v2/organizations/?page_size=10000');
    assert.equal(res.status, 200);
    assert.equal(res.body.results.length, 200);
    assert.equal(res.body.count, TOTAL);
    assert.deepEqual(link(res.body.next), { path: '/api/v2/organizations/', params: { page_size: '200', page: '2' } });
    const second = await t.get(res.body.next);
    assert.equal(second.status, 200);
    assert.equal(second.body.results.length, TOTAL - 200);
    assert.equal(second.body.next, null);
    assert.deepEqual(link(second.body.previous), { path: '/api/v2/organizations/', params: { page_size: '200' } });
  });

  it('serves the last partial page and refuses the one after', async () => {
    const last = await t.get('/api/v2/organizations/?page=10');
    assert.equal(last.status, 200);
    assert.equal(last.body.results.length, TOTAL - 225);
    assert.equal(last.body.next, null);
    assert.equal(last.body.previous, '/api/v2/organizations/?page=9');
    assert.deepEqual(await t.get('/api/v2/organizations/?page=11').then((r) => [r.status, r.body]), [404, { detail: 'Invalid page.' }]);
  });

  it('bad page values are 404 "Invalid page."', async () => {
    for (const page of ['0', '-1', 'abc', '1.5', '', '99999999999999999999', '1e2']) {
      const res = await t.get(`/api/v2/organizations/?page=${encodeURIComponent(page)}`);
      assert.equal(res.status, 404, `page=${page}`);
      assert.deepEqual(res.body, { detail: 'Invalid page.' });
    }
  });

  it('an unusable page_size falls back to the default', async () => {
    for (const size of ['0', '-5', 'abc']) {
      const res = await t.get(`/api/v2/organizations/?page_size=${size}`);
      assert.equal(res.status, 200, `page_size=${size}`);
      assert.equal(res.body.results.length, 25);
    }
    const small = await t.get('/api/v2/organizations/?page_size=7');
    assert.equal(small.body.results.length, 7);
    assert.deepEqual(link(small.body.next)?.params, { page_size: '7', page: '2' });
  });

  it('page 1 of an empty filtered list is an empty page; page 2 is invalid', async () => {
    for (const url of ['/api/v2/organizations/?name=nothing', '/api/v2/organizations/?name=nothing&page=1']) {
      const res = await t.get(url);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { count: 0, next: null, previous: null, results: [] });
    }
    const res = await t.get('/api/v2/organizations/?name=nothing&page=2');
    assert.deepEqual([res.status, res.body], [404, { detail: 'Invalid page.' }]);
  });

  it('next and previous keep the other parameters', async () => {
    const res = await t.get('/api/v2/organizations/?name__startswith=org-1&order_by=-name&page_size=10&page=2');
    assert.equal(res.status, 200);
    assert.equal(res.body.count, 100);
    assert.deepEqual(
      res.body.results.map((r: any) => r.name),
      Array.from({ length: 10 }, (_, i) => `org-${189 - i}`),
    );
    assert.deepEqual(link(res.body.next), {
      path: '/api/v2/organizations/',
      params: { name__startswith: 'org-1', order_by: '-name', page_size: '10', page: '3' },
    });
    assert.deepEqual(link(res.body.previous), {
      path: '/api/v2/organizations/',
      params: { name__startswith: 'org-1', order_by: '-name', page_size: '10' },
    });
  });

  it('links keep repeated parameters and encoded values', async () => {
    const res = await t.get('/api/v2/organizations/?or__name=org-001&or__name=org-002&or__name=org+003&page_size=1');
    assert.equal(res.body.count, 2);
    const next = new URL(res.body.next, 'http://x');
    assert.deepEqual(next.searchParams.getAll('or__name'), ['org-001', 'org-002', 'org 003']);
    const second = await t.get(res.body.next);
    assert.equal(second.status, 200);
    assert.equal(second.body.results[0].name, 'org-002');
  });

  it('counts honour filters and search', async () => {
    const cases: [string, number][] = [
      ['name__startswith=org-00', 9],
      ['name__startswith=org-1', 100],
      ['search=org-2', 31],
      ['name__in=Default,org-001', 2],
      ['not__name__startswith=org-', 1],
    ];
    for (const [query, count] of cases) {
      const res = await t.get(`/api/v2/organizations/?${query}&page_size=5`);
      assert.equal(res.status, 200, query);
      assert.equal(res.body.count, count, query);
      assert.equal(res.body.results.length, Math.min(5, count), query);
      assert.equal(res.body.next === null, count <= 5, query);
    }
  });

  it('pages do not overlap and together hold every object', async () => {
    const seen = new Set<number>();
    let url: string | null = '/api/v2/organizations/?page_size=50&order_by=description';
    let pages = 0;
    while (url) {
      const res = await t.get(url);
      assert.equal(res.status, 200);
      for (const r of res.body.results) seen.add(r.id);
      url = res.body.next;
      pages += 1;
    }
    assert.equal(pages, 5);
    assert.equal(seen.size, TOTAL);
  });

  it('related lists are paginated with links on their own path', async () => {
    const res = await t.get(`/api/v2/organizations/${alphaId}/teams/?page_size=10&page=2`);
    assert.equal(res.status, 200);
    assert.equal(res.body.count, 30);
    assert.deepEqual(
      res.body.results.map((r: any) => r.name),
      Array.from({ length: 10 }, (_, i) => `team-${String(i + 11).padStart(2, '0')}`),
    );
    assert.deepEqual(link(res.body.next), { path: `/api/v2/organizations/${alphaId}/teams/`, params: { page_size: '10', page: '3' } });
    assert.deepEqual(link(res.body.previous), { path: `/api/v2/organizations/${alphaId}/teams/`, params: { page_size: '10' } });
    const bad = await t.get(`/api/v2/organizations/${alphaId}/teams/?page=4&page_size=10`);
    assert.deepEqual([bad.status, bad.body], [404, { detail: 'Invalid page.' }]);
  });

  it('a plain user counts only what he may see', async () => {
    const user = await newUser(t, { member: alphaId });
    const res = await t.get('/api/v2/organizations/?page_size=1', { as: user });
    assert.equal(res.status, 200);
    assert.equal(res.body.count, 1);
    assert.equal(res.body.next, null);
    assert.equal(res.body.results[0].name, 'org-001');
    const beyond = await t.get('/api/v2/organizations/?page=2&page_size=1', { as: user });
    assert.deepEqual([beyond.status, beyond.body], [404, { detail: 'Invalid page.' }]);
  });
});
