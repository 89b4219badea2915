export type DbChoice = 'pglite' | 'postgres';

/** A positive integer from the environment, or the fallback when unset. */
export function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, not ${JSON.stringify(raw)}`);
  return n;
}

/** Which databases to run on: --db= or BENCH_DB (pglite, postgres, both); PostgreSQL when POSTGRES_HOST is set. */
export function databases(): DbChoice[] {
  const argDb = process.argv.slice(2).find((a) => a.startsWith('--db='))?.slice('--db='.length);
  const dbSetting = (argDb ?? process.env.BENCH_DB ?? (process.env.POSTGRES_HOST ? 'postgres' : 'pglite')).toLowerCase();
  if (dbSetting === 'both') return ['pglite', 'postgres'];
  if (dbSetting === 'pglite' || dbSetting === 'embedded') return ['pglite'];
  if (dbSetting === 'postgres' || dbSetting === 'postgresql' || dbSetting === 'server') return ['postgres'];
  throw new Error(`BENCH_DB must be pglite, postgres or both, not ${JSON.stringify(dbSetting)}`);
}
