import { readdir, readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Database } from './database.ts';

const migrationsDir = fileURLToPath(new URL('./migrations/', import.meta.url));
// Any constant works; it only keeps two nodes from migrating the same database at once.
const MIGRATION_LOCK_KEY = 7_341_101;

export interface Migration {
  name: string;
  sql: string;
}

export async function loadMigrations(): Promise<Migration[]> {
  const names = (await readdir(migrationsDir)).filter((n) => n.endsWith('.sql')).sort();
  return Promise.all(names.map(async (name) => ({ name, sql: await readFile(migrationsDir + name, 'utf8') })));
}

/** A fingerprint of every migration, used to key cached template databases. */
export async function migrationsFingerprint(): Promise<string> {
  const hash = createHash('sha256');
  for (const m of await loadMigrations()) hash.update(m.name).update('\0').update(m.sql);
  return hash.digest('hex').slice(0, 16);
}

/** Applies, in name order, every migration not yet recorded in schema_migrations. */
export async function migrate(db: Database): Promise<string[]> {
  const migrations = await loadMigrations();
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY, applied timestamptz NOT NULL DEFAULT now())`);
    const done = new Set((await tx.query<{ name: string }>('SELECT name FROM schema_migrations')).map((r) => r.name));
    const applied: string[] = [];
    for (const m of migrations) {
      if (done.has(m.name)) continue;
      await tx.exec(m.sql);
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [m.name]);
      applied.push(m.name);
    }
    return applied;
  });
}
