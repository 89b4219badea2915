// The thread PGlite runs in (see embedded.ts): plain JavaScript so that it loads without the
// TypeScript loader. It owns the one PGlite instance and answers the statements the service's
// thread sends, one at a time; a long statement keeps this thread busy, never the service's.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

/** The fields of an error the service reads (PostgreSQL's code, detail, constraint...), as a plain object that crosses threads. */
function errorFields(err) {
  if (!(err instanceof Error)) return { message: String(err) };
  const fields = { name: err.name, message: err.message };
  for (const [key, value] of Object.entries(err)) {
    if (value === undefined || typeof value === 'function' || key === 'queryOptions') continue;
    fields[key] = value;
  }
  return fields;
}

const rowsOf = (results) => results.map((result) => result.rows);

async function answer(pg, request) {
  switch (request.op) {
    case 'query':
      return (await pg.query(request.text, request.params)).rows;
    case 'queryMany':
      return rowsOf(await pg.exec(request.text));
    case 'exec':
      await pg.exec(request.text);
      return null;
    case 'commit': {
      // As PGlite's own transactions: COMMIT of a transaction a failed statement aborted rolls it back.
      const [result] = await pg.exec('COMMIT');
      if (result.command === 'ROLLBACK') throw Object.assign(new Error('Transaction was rolled back instead of committed'), { name: 'error', severity: 'ERROR', code: '25P02' });
      return null;
    }
    case 'dump':
      // Moved, not copied, to the service's thread.
      return await (await pg.dumpDataDir('gzip')).arrayBuffer();
    case 'close':
      await pg.close();
      return null;
    default:
      throw new Error(`unknown request ${request.op}`);
  }
}

const { dataDir, loadDataDir, pgliteWasmModule } = workerData;
let pg;
try {
  // pg_trgm backs the trigram indexes of searches (migration 0002); a database using it needs it loaded.
  pg = await PGlite.create({ dataDir, loadDataDir: loadDataDir ? new Blob([loadDataDir]) : undefined, pgliteWasmModule, extensions: { pg_trgm } });
} catch (err) {
  parentPort.postMessage({ failed: errorFields(err) });
  process.exit(1);
}

// A notification is posted before the answer of the statement that brought it, as PGlite calls its handlers.
pg.onNotification((channel, payload) => parentPort.postMessage({ channel, payload }));

parentPort.on('message', async (request) => {
  try {
    const result = await answer(pg, request);
    parentPort.postMessage({ id: request.id, result }, result instanceof ArrayBuffer ? [result] : []);
  } catch (err) {
    try {
      parentPort.postMessage({ id: request.id, error: errorFields(err) });
    } catch {
      // A field that cannot be copied: the message still can.
      parentPort.postMessage({ id: request.id, error: { message: err instanceof Error ? err.message : String(err) } });
    }
  }
  if (request.op === 'close') parentPort.close();
});
parentPort.postMessage({ ready: true });
