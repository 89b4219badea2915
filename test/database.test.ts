import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sqlIntegers } from '../src/db/database.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';

// On a PostgreSQL server (POSTGRES_HOST) statements run often become prepared statements
// (src/db/statement-names.ts); on PGlite the same checks hold without them.
describe('database access', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
    await t.db.exec(`CREATE TABLE scratch_items (id int PRIMARY KEY, name text NOT NULL); INSERT INTO scratch_items VALUES (1, 'one'), (2, 'two')`);
  });
  after(() => t.close());

  it('queryMany answers the rows of each statement, in order, in and out of a transaction', async () => {
    const statements = [`SELECT name FROM scratch_items WHERE id = ANY(${sqlIntegers([2, 1])}) ORDER BY id`, 'SELECT 1 AS x WHERE false', 'SELECT 3 AS n'];
    const expected = [[{ name: 'one' }, { name: 'two' }], [], [{ n: 3 }]];
    assert.deepEqual(await t.db.queryMany(statements), expected);
    assert.deepEqual(await t.db.transaction((tx) => tx.queryMany(statements)), expected);
    assert.deepEqual(await t.db.queryMany([statements[2]]), [[{ n: 3 }]]);
    assert.deepEqual(await t.db.queryMany([]), []);
  });

  it('sqlIntegers writes integers only', () => {
    assert.equal(sqlIntegers([1, 22]), `'{1,22}'::integer[]`);
    assert.equal(sqlIntegers([]), `'{}'::integer[]`);
    for (const bad of [1.5, '1', '1}', Number.NaN, 2 ** 60]) assert.throws(() => sqlIntegers([bad]));
  });

  it('a statement run many times answers alike before and after a schema change of its table', async () => {
    const read = (q: Pick<TestApp['db'], 'query'> = t.db) => q.query('SELECT * FROM scratch_items WHERE id = $1', [1]);
    for (let i = 0; i < 12; i++) assert.deepEqual(await read(), [{ id: 1, name: 'one' }]);
    await t.db.exec(`ALTER TABLE scratch_items ADD COLUMN extra int NOT NULL DEFAULT 7`);
    assert.deepEqual(await read(), [{ id: 1, name: 'one', extra: 7 }]);
    assert.deepEqual(await t.db.transaction((tx) => read(tx)), [{ id: 1, name: 'one', extra: 7 }]);
  });

  it('in a transaction, a prepared statement whose result a schema change altered fails once, then runs unprepared', async () => {
    const read = (tx: Pick<TestApp['db'], 'query'>) => tx.query('SELECT name FROM scratch_items WHERE id = $1', [2]);
    for (let i = 0; i < 12; i++) await t.db.transaction((tx) => read(tx));
    await t.db.exec(`ALTER TABLE scratch_items ALTER COLUMN name TYPE varchar(20)`);
    const first = await t.db.transaction((tx) => read(tx)).then((rows) => rows, (err: Error) => err);
    if (t.db.kind === 'server') assert.match(String(first), /cached plan must not change result type/);
    else assert.deepEqual(first, [{ name: 'two' }]);
    assert.deepEqual(await t.db.transaction((tx) => read(tx)), [{ name: 'two' }]);
  });
});
