import path from 'node:path';
import type { EnvConfig } from '../config/env.ts';
import type { Database } from './database.ts';
import { EmbeddedDatabase } from './embedded.ts';
import { ServerDatabase } from './server.ts';

/**
 * PGlite in the data directory, or the PostgreSQL server named by POSTGRES_*. A process of its own
 * (the assistant) names another embedded directory: one PGlite directory serves one process.
 */
export async function openDatabase(env: EnvConfig, options: { embeddedDir?: string } = {}): Promise<Database> {
  if (env.postgres) return new ServerDatabase(env.postgres);
  return EmbeddedDatabase.open({ dataDir: path.join(env.dataDir, options.embeddedDir ?? 'pgdata') });
}
