import { callerIn } from '../src/api/context.ts';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, createTestApp, type Credentials, type TestApp } from './helpers/app.ts';
import { AUDIT_COLUMNS } from '../src/resources/audit-events/exports.ts';
import { recordAudit } from '../src/audit/record.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

/** Splits CSV text into rows of cells (quoted cells may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  if (cell !== '' || row.length) rows.push([...row, cell]);
  return rows;
}

describe('audit events', () => {
  let t: TestApp;
  let auditor: Credentials & { id: number };
  let plain: Credentials & { id: number };

  before(async () => {
    t = await createTestApp();
    auditor = await t.createUser('sys-auditor', { is_system_auditor: true });
    plain = await t.createUser('plain-user');
    // Logins of every outcome, from distinct addresses and agents.
    await t.post('/api/login/', { username: 'plain-user', password: 'wrong' }, { as: null, headers: { 'x-forwarded-for': '10.9.0.1', 'user-agent': 'curl/8.0' } });
    await t.post('/api/login/', { username: 'plain-user', password: plain.password }, { as: null, headers: { 'x-forwarded-for': '10.9.0.2' } });
    await t.post('/api/login/', { username: 'admin', password: ADMIN.password }, { as: null, headers: { 'x-forwarded-for': '10.9.0.3', 'user-agent': '=HYPERLINK("http://evil"),"quoted"' } });
    // An event with a detail to flatten.
    await recordAudit(t.db, {
      type: 'rbac.role_granted',
      ctx: callerIn(t.services, { id: 1, username: 'admin', isSuperuser: true, isSystemAuditor: false }, 'basic'),
      target: { type: 'role', id: 7, name: 'Default admin' },
      client: { remoteAddr: '10.9.0.4', userAgent: 'test' },
      detail: { role: 'export-test-role', 'grantee-user': 'plain-user', nested: { a: [1, 2] }, count: 3, flag: true },
    });
  });
  after(() => t.close());

  const count = async (where = 'true', params: unknown[] = []) =>
    (await t.db.query<AnyRow>(`SELECT count(*)::int AS n FROM audit_events WHERE ${where}`, params))[0].n as number;

  describe('access', () => {
    it('superusers and system auditors read the list and details', async () => {
      for (const who of [ADMIN, auditor]) {
        const list = await t.get('/api/v2/audit_events/', { as: who });
        assert.equal(list.status, 200, who.username);
        assert.equal(list.body.count, await count());
        const detail = await t.get(`/api/v2/audit_events/${list.body.results[0].id}/`, { as: who });
        assert.equal(detail.status, 200);
        assert.equal(detail.body.id, list.body.results[0].id);
      }
    });

    it('others are refused with 403, anonymous callers with 401', async () => {
      const [{ id }] = await t.db.query<AnyRow>('SELECT id FROM audit_events ORDER BY id LIMIT 1');
      for (const url of ['/api/v2/audit_events/', `/api/v2/audit_events/${id}/`, '/api/v2/audit_events/?format=csv', '/api/v2/audit_events/?format=siem']) {
        assert.equal((await t.get(url, { as: plain })).status, 403, url);
        assert.equal((await t.get(url, { as: null })).status, 401, url);
      }
      const s = await t.login(plain);
      assert.equal((await s.get('/api/v2/audit_events/')).status, 403);
    });

    it('is read-only through the API', async () => {
      const [{ id }] = await t.db.query<AnyRow>('SELECT id FROM audit_events ORDER BY id LIMIT 1');
      assert.equal((await t.post('/api/v2/audit_events/', { event_type: 'forged' })).status, 405);
      assert.equal((await t.patch(`/api/v2/audit_events/${id}/`, { event_type: 'forged' })).status, 405);
      assert.equal((await t.put(`/api/v2/audit_events/${id}/`, { event_type: 'forged' })).status, 405);
      assert.equal((await t.delete(`/api/v2/audit_events/${id}/`)).status, 405);
      const options = await t.request('OPTIONS', '/api/v2/audit_events/');
      assert.equal(options.status, 200);
      assert.equal(options.body.actions.POST, undefined);
      assert.ok((await t.get('/api/v2/')).body.audit_events, 'listed in /api/v2/');
    });

    it('the database refuses updates, deletes and truncation, even from the service role', async () => {
      const [row] = await t.db.query<AnyRow>('SELECT * FROM audit_events ORDER BY id LIMIT 1');
      await assert.rejects(t.db.query<AnyRow>(`UPDATE audit_events SET event_type = 'forged' WHERE id = $1`, [row.id]), /immutable/);
      await assert.rejects(t.db.query<AnyRow>('DELETE FROM audit_events WHERE id = $1', [row.id]), /immutable/);
      await assert.rejects(t.db.query<AnyRow>('TRUNCATE audit_events'), /immutable/);
      await assert.rejects(t.db.transaction((tx) => tx.query<AnyRow>(`UPDATE audit_events SET detail = '{}' WHERE id = $1`, [row.id])), /immutable/);
      const [again] = await t.db.query<AnyRow>('SELECT * FROM audit_events WHERE id = $1', [row.id]);
      assert.deepEqual(again, row);
    });
  });

  describe('list', () => {
    it('serializes every field', async () => {
      const res = await t.get('/api/v2/audit_events/?event_type=auth.login&outcome=success&actor_username=plain-user&remote_addr=10.9.0.2');
      assert.equal(res.body.count, 1);
      const event = res.body.results[0];
      assert.equal(event.type, 'audit_event');
      assert.equal(event.url, `/api/v2/audit_events/${event.id}/`);
      assert.equal(event.actor, plain.id);
      assert.equal(event.related.actor, `/api/v2/users/${plain.id}/`);
      assert.equal(event.summary_fields.actor.username, 'plain-user');
      assert.equal(event.remote_addr, '10.9.0.2');
      assert.equal(event.auth_method, 'session');
      assert.equal(event.node, 'test-node');
      assert.equal(event.target_type, 'user');
      assert.equal(event.target_id, plain.id);
      assert.match(event.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/);
      assert.equal(event.created, undefined, 'untracked: no created/modified');
      assert.deepEqual(event.detail, {});
    });

    it('filters, searches, orders and paginates', async () => {
      const failures = await t.get('/api/v2/audit_events/?outcome=failure');
      assert.equal(failures.body.count, await count(`outcome = 'failure'`));
      assert.ok(failures.body.results.every((e: { outcome: string }) => e.outcome === 'failure'));
      const byActor = await t.get('/api/v2/audit_events/?actor__username=admin');
      assert.equal(byActor.body.count, await count('actor_id = 1'));
      const search = await t.get('/api/v2/audit_events/?search=10.9.0.1');
      assert.equal(search.body.count, 1);
      const today = new Date().toISOString().slice(0, 10);
      assert.equal((await t.get(`/api/v2/audit_events/?timestamp__gte=${today}`)).body.count, await count(`timestamp >= $1::date`, [today]));
      const detail = await t.get('/api/v2/audit_events/?detail__icontains=export-test-role');
      assert.equal(detail.body.count, 1);
      const ascending = await t.get('/api/v2/audit_events/?order_by=id&page_size=2');
      assert.equal(ascending.body.results.length, 2);
      assert.ok(ascending.body.results[0].id < ascending.body.results[1].id);
      assert.match(ascending.body.next, /page=2/);
      const descending = await t.get('/api/v2/audit_events/');
      const ids = descending.body.results.map((e: { id: number }) => e.id);
      assert.deepEqual(ids, [...ids].sort((a, b) => b - a), 'newest first by default');
      assert.equal((await t.get('/api/v2/audit_events/?page=99')).status, 404);
      assert.equal((await t.get('/api/v2/audit_events/?bogus=1')).status, 400);
    });
  });

  describe('exports', () => {
    it('format=csv downloads every matching row, ignoring pagination', async () => {
      const res = await t.get('/api/v2/audit_events/?format=csv&page_size=1&order_by=id');
      assert.equal(res.status, 200);
      assert.match(String(res.headers['content-type']), /^text\/csv/);
      assert.equal(res.headers['content-disposition'], 'attachment; filename="audit_events.csv"');
      const rows = parseCsv(res.text);
      assert.deepEqual(rows[0], [...AUDIT_COLUMNS, 'detail']);
      assert.equal(rows.length - 1, await count());
      const ids = rows.slice(1).map((r) => Number(r[0]));
      assert.deepEqual(ids, [...ids].sort((a, b) => a - b), 'ordered as asked');

      const filtered = parseCsv((await t.get('/api/v2/audit_events/?format=csv&event_type=auth.login&outcome=failure', { as: auditor })).text);
      assert.equal(filtered.length - 1, await count(`event_type = 'auth.login' AND outcome = 'failure'`));
      const failure = filtered.find((r) => r[5] === 'plain-user')!;
      assert.equal(failure[3], 'failure');
      assert.equal(failure[10], 'curl/8.0');
      assert.deepEqual(JSON.parse(failure[13]), { reason: 'invalid_credentials' });
    });

    it('CSV cells are quoted, and formulas are defused', async () => {
      const res = await t.get('/api/v2/audit_events/?format=csv&remote_addr=10.9.0.3&event_type=auth.login');
      const rows = parseCsv(res.text);
      assert.equal(rows.length, 2);
      assert.equal(rows[1][10], `'=HYPERLINK("http://evil"),"quoted"`);
      assert.ok(res.text.includes(`"'=HYPERLINK(""http://evil""),""quoted"""`));
    });

    it('format=siem answers one flat JSON object per line with stable names', async () => {
      const res = await t.get('/api/v2/audit_events/?format=siem', { as: auditor });
      assert.equal(res.status, 200);
      assert.match(String(res.headers['content-type']), /^application\/x-ndjson/);
      const lines = res.text.trimEnd().split('\n');
      assert.equal(lines.length, await count());
      const events = lines.map((line) => JSON.parse(line));
      for (const event of events) {
        for (const column of AUDIT_COLUMNS) assert.ok(column in event, column);
        for (const value of Object.values(event)) assert.ok(value === null || typeof value !== 'object', 'flat');
      }
      const granted = events.find((e) => e.event_type === 'rbac.role_granted' && e.target_name === 'Default admin');
      assert.equal(granted.detail_role, 'export-test-role');
      assert.equal(granted.detail_grantee_user, 'plain-user');
      assert.equal(granted.detail_nested, '{"a":[1,2]}');
      assert.equal(granted.detail_count, 3);
      assert.equal(granted.detail_flag, true);
      assert.equal(granted.target_id, 7);
      assert.equal(granted.actor_id, 1);
      assert.match(granted.timestamp, /Z$/);
      const filtered = await t.get('/api/v2/audit_events/?format=siem&event_type=rbac.role_granted&target_name=Default%20admin');
      assert.equal(filtered.text.trimEnd().split('\n').length, 1);
      const none = await t.get('/api/v2/audit_events/?format=siem&event_type=nothing');
      assert.deepEqual([none.status, none.text], [200, '']);
    });

    it('other formats answer the JSON list', async () => {
      const res = await t.get('/api/v2/audit_events/?format=json');
      assert.equal(res.status, 200);
      assert.equal(typeof res.body.count, 'number');
      // Resources without exports ignore the parameter too.
      assert.equal((await t.get('/api/v2/users/?format=csv')).body.count >= 1, true);
    });
  });

  describe('settings changes', () => {
    it('are recorded in the same transaction, with the names changed', async () => {
      const before = await count(`event_type = 'setting.changed'`);
      const res = await t.patch('/api/v2/settings/authentication/', { SESSIONS_PER_USER: 3, AUTH_BASIC_ENABLED: true }, { headers: { 'x-forwarded-for': '10.9.1.1' } });
      assert.equal(res.status, 200);
      const [event] = await t.db.query<AnyRow>(`SELECT * FROM audit_events WHERE event_type = 'setting.changed' ORDER BY id DESC LIMIT 1`);
      assert.equal(await count(`event_type = 'setting.changed'`), before + 1);
      assert.deepEqual(event.detail.settings, ['SESSIONS_PER_USER'], 'only what changed');
      assert.deepEqual(event.detail.categories, ['authentication']);
      assert.deepEqual(event.detail.changes, { SESSIONS_PER_USER: [-1, 3] });
      assert.equal(event.actor_username, 'admin');
      assert.equal(event.auth_method, 'basic');
      assert.equal(event.remote_addr, '10.9.1.1');
      // Nothing changed: no event.
      await t.patch('/api/v2/settings/authentication/', { SESSIONS_PER_USER: 3 });
      assert.equal(await count(`event_type = 'setting.changed'`), before + 1);
      // A refused change records nothing either.
      assert.equal((await t.patch('/api/v2/settings/authentication/', { SESSIONS_PER_USER: -5 })).status, 400);
      assert.equal(await count(`event_type = 'setting.changed'`), before + 1);
      assert.equal((await t.delete('/api/v2/settings/authentication/')).status, 204);
      const [reset] = await t.db.query<AnyRow>(`SELECT * FROM audit_events WHERE event_type = 'setting.changed' ORDER BY id DESC LIMIT 1`);
      assert.deepEqual(reset.detail.settings, ['SESSIONS_PER_USER']);
    });
  });
});
