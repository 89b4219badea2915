// The embedded database (PGlite) runs in a thread of its own: the service's thread stays free while
// a statement runs, a list query past LIST_QUERY_TIMEOUT is stopped (the thread is ended and the
// data directory opened again) and answers 400 as on a PostgreSQL server, and values, errors,
// transactions and notifications behave as they did with PGlite in the service's thread.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PgError, pgErrorCode, type Database } from '../src/db/database.ts';
import { createTestApp, newOrg, newUser, type TestApp, type User } from './helpers/app.ts';
import { serverMode } from './helpers/database.ts';

/** A query string with proper encoding. */
const qs = (params: [string, string][]) => new URLSearchParams(params).toString();

/** Resolves when the next statement with a timeout (a list query) is handed to the database. */
function nextTimedStatement(db: Database): Promise<void> {
  const original = db.queryWithTimeout;
  return new Promise((resolve) => {
    db.queryWithTimeout = ((...args: Parameters<Database['queryWithTimeout']>) => {
      db.queryWithTimeout = original;
      const running = original.apply(db, args);
      resolve();
      return running;
    }) as Database['queryWithTimeout'];
  });
}

describe('the embedded database in a thread of its own', { skip: serverMode() && 'PGlite only' }, () => {
  let t: TestApp;
  let slowOrg: number;
  let member: User;
  let otherAdmin: User;

  before(async () => {
    t = await createTestApp();
    await t.db.exec(`CREATE TABLE scratch_values (id serial PRIMARY KEY, name text UNIQUE, data bytea, doc jsonb, at timestamptz, big bigint, amount numeric)`);
    // 40 MB of text in each: a case-insensitive search reads all of it, for seconds on PGlite.
    slowOrg = (await newOrg(t, { name: 'Slow' })).id;
    const otherOrg = (await newOrg(t, { name: 'Other' })).id;
    await t.db.query(`UPDATE organizations SET description = repeat('abcdefghij', 4000000) WHERE id = ANY($1)`, [[slowOrg, otherOrg]]);
    member = await newUser(t, { member: slowOrg });
    otherAdmin = await newUser(t, { admin: otherOrg });
  });
  after(() => t?.close());

  it('answers values of the same types as PGlite does', async () => {
    const at = new Date('2024-05-06T07:08:09.123Z');
    const [row] = await t.db.query(
      `INSERT INTO scratch_values (name, data, doc, at, big, amount) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *, ARRAY[1, 2] AS numbers, '2024-01-02'::date AS day`,
      ['one', Buffer.from([0, 1, 255]), JSON.stringify({ a: [1, { b: null }] }), at, 12345678901234, '1.50'],
    );
    assert.ok(row.data instanceof Uint8Array);
    assert.deepEqual([...row.data], [0, 1, 255]);
    assert.deepEqual(row.doc, { a: [1, { b: null }] });
    assert.ok(row.at instanceof Date);
    assert.equal(row.at.getTime(), at.getTime());
    assert.ok(row.day instanceof Date);
    assert.equal(row.big, 12345678901234);
    assert.equal(row.amount, '1.50');
    assert.deepEqual(row.numbers, [1, 2]);
  });

  it('keeps the fields of database errors the service reads', async () => {
    const err = await t.db.query(`INSERT INTO scratch_values (name) VALUES ('one')`).catch((e: unknown) => e);
    assert.ok(err instanceof Error);
    assert.equal(pgErrorCode(err), PgError.uniqueViolation);
    assert.match(err.message, /duplicate key value violates unique constraint "scratch_values_name_key"/);
    assert.equal((err as { constraint?: string }).constraint, 'scratch_values_name_key');
    assert.equal((err as { detail?: string }).detail, 'Key (name)=(one) already exists.');
    // Through the API: the same error becomes the same 400.
    assert.equal((await t.post('/api/v2/organizations/', { name: 'Slow' })).status, 400);
  });

  it('runs a transaction alone, commits or rolls it back, and refuses a commit after a failed statement', async () => {
    const order: string[] = [];
    let inside!: () => void;
    const entered = new Promise<void>((resolve) => (inside = resolve));
    const tx = t.db.transaction(async (q) => {
      await q.query(`INSERT INTO scratch_values (name) VALUES ('two')`);
      inside();
      // A statement sent meanwhile from outside waits for the commit.
      await new Promise((resolve) => setImmediate(resolve));
      order.push('transaction');
    });
    await entered;
    const outside = t.db.query(`SELECT count(*)::int AS n FROM scratch_values WHERE name = 'two'`).then(([r]) => order.push(`outside saw ${r.n}`));
    await Promise.all([tx, outside]);
    assert.deepEqual(order, ['transaction', 'outside saw 1']);

    await assert.rejects(
      t.db.transaction(async (q) => {
        await q.query(`INSERT INTO scratch_values (name) VALUES ('three')`);
        throw new Error('changed my mind');
      }),
      /changed my mind/,
    );
    const aborted = await t.db
      .transaction(async (q) => {
        await q.query(`INSERT INTO scratch_values (name) VALUES ('four')`);
        await q.query(`INSERT INTO scratch_values (name) VALUES ('one')`).catch(() => undefined);
      })
      .catch((e: unknown) => e);
    assert.equal(pgErrorCode(aborted), '25P02');
    assert.deepEqual(await t.db.query(`SELECT name FROM scratch_values WHERE name IN ('three', 'four')`), []);
  });

  it('lets an urgent transaction go before the statements already waiting, and after the one running', async () => {
    const order: string[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let inside!: () => void;
    const entered = new Promise<void>((resolve) => (inside = resolve));
    const running = t.db.transaction(async (q) => {
      await q.query('SELECT 1');
      inside();
      await released;
      order.push('running');
    });
    await entered;
    const waiting = [
      t.db.query('SELECT 1').then(() => order.push('first waiting')),
      t.db.transaction(async (q) => void (await q.query('SELECT 1'))).then(() => order.push('second waiting')),
    ];
    const urgent = [1, 2].map((n) => t.db.transaction(async (q) => void (await q.query('SELECT 1')), { urgent: true }).then(() => order.push(`urgent ${n}`)));
    release();
    await Promise.all([running, ...waiting, ...urgent]);
    assert.deepEqual(order, ['running', 'urgent 1', 'urgent 2', 'first waiting', 'second waiting']);
  });

  it('delivers a notification sent in a transaction once it commits', async () => {
    const received: string[] = [];
    const stop = await t.db.listen('scratch_channel', (payload) => received.push(payload));
    try {
      await t.db.transaction(async (q) => {
        await q.query(`SELECT pg_notify('scratch_channel', 'in a transaction')`);
        assert.deepEqual(received, []);
      });
      assert.deepEqual(received, ['in a transaction']);
    } finally {
      await stop();
    }
  });

  describe('LIST_QUERY_TIMEOUT', () => {
    before(async () => assert.equal((await t.patch('/api/v2/settings/system/', { LIST_QUERY_TIMEOUT: 1 })).status, 200));
    after(() => t.patch('/api/v2/settings/system/', { LIST_QUERY_TIMEOUT: 5 }));

    const slowFilter = qs(['zq', 'zw', 'zx', 'zy'].map((text) => ['or__description__icontains', text]));

    it('stops a list query of a plain member that runs longer, with 400, while requests that need no database answer', async () => {
      const order: string[] = [];
      const started = nextTimedStatement(t.db);
      const slow = t.get(`/api/v2/organizations/?${slowFilter}`, { as: member }).then((res) => (order.push('list'), res));
      await started;
      const root = await t.get('/api/v2/', { as: null });
      order.push('root');
      const stopped = await slow;
      assert.equal(root.status, 200);
      assert.deepEqual(order, ['root', 'list'], 'the API root answered while the list query ran');
      assert.equal(stopped.status, 400, stopped.text);
      assert.deepEqual(stopped.body, { detail: 'The filter took too long (over 1 second); make it simpler.' });
    });

    it("stops another organization's admin's list query too; what was queued behind it runs once the database is open again", async () => {
      const received: string[] = [];
      const stop = await t.db.listen('scratch_channel', (payload) => received.push(payload));
      try {
        const started = nextTimedStatement(t.db);
        const slow = t.get(`/api/v2/organizations/?${slowFilter}`, { as: otherAdmin });
        await started;
        // Sent while the list query holds the database: they wait for it, then run on the new thread.
        const [ping, list, created] = await Promise.all([
          t.get('/api/v2/ping/', { as: null }),
          t.get(`/api/v2/users/?username=${member.username}`, { as: member }),
          t.post('/api/v2/organizations/', { name: 'Made while stopped' }),
        ]);
        const stopped = await slow;
        assert.equal(stopped.status, 400, stopped.text);
        assert.equal(stopped.body.detail, 'The filter took too long (over 1 second); make it simpler.');
        assert.equal(ping.status, 200);
        assert.equal(ping.body.database, 'embedded');
        assert.equal(list.status, 200, list.text);
        assert.equal(list.body.count, 1);
        assert.equal(created.status, 201, created.text);

        // Nothing written before or after is lost, and listeners hear notifications again.
        assert.deepEqual(await t.db.query(`SELECT count(*)::int AS n FROM organizations WHERE name IN ('Slow', 'Made while stopped')`), [{ n: 2 }]);
        assert.deepEqual(await t.db.query(`SELECT count(*)::int AS n FROM scratch_values WHERE name IN ('one', 'two')`), [{ n: 2 }]);
        await t.db.query(`SELECT pg_notify('scratch_channel', 'after the restart')`);
        assert.deepEqual(received, ['after the restart']);
      } finally {
        await stop();
      }
    });

    it('leaves quick lists alone', async () => {
      const res = await t.get(`/api/v2/users/?${qs([['organizations__name__icontains', 'slo']])}`, { as: member });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.results.map((u: { id: number }) => u.id), [member.id]);
    });
  });
});
