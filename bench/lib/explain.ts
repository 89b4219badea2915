import type { TestApp } from '../../test/helpers/app.ts';

/** Records the queries one request runs, then prints each with its plan. */
export async function explain(t: TestApp, send: () => Promise<unknown>, name: string): Promise<void> {
  const db = t.db;
  const original = db.query.bind(db);
  const originalWithTimeout = db.queryWithTimeout.bind(db);
  const seen: [string, readonly unknown[]][] = [];
  db.query = ((text: string, params: readonly unknown[] = []) => {
    seen.push([text, params]);
    return original(text, params);
  }) as typeof db.query;
  // The list queries (those under LIST_QUERY_TIMEOUT).
  db.queryWithTimeout = ((text: string, params: readonly unknown[], timeoutMs: number) => {
    seen.push([text, params]);
    return originalWithTimeout(text, params, timeoutMs);
  }) as typeof db.queryWithTimeout;
  try {
    await send();
  } finally {
    db.query = original;
    db.queryWithTimeout = originalWithTimeout;
  }
  console.log(`\n----- ${name}: ${seen.length} queries`);
  for (const [text, params] of seen) {
    console.log(`\n${text.replace(/\s+/g, ' ').trim()}\n  params: ${JSON.stringify(params).slice(0, 200)}`);
    if (!/^\s*(SELECT|WITH)\b/i.test(text)) continue;
    const plan = await original<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, COSTS OFF) ${text}`, params);
    console.log(plan.map((r) => `  | ${r['QUERY PLAN']}`).join('\n'));
  }
}
