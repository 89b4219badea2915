import { after } from 'node:test';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Services } from '../../src/api/context.ts';
import { runManageCommand } from '../../src/cli/manage.ts';
import type { EnvConfig } from '../../src/config/env.ts';
import { openServices } from '../../src/server/start.ts';
import { serverConnection, serverMode } from './database.ts';

const dataDirs: string[] = [];
const databases: string[] = [];

// Every service and command of the file has ended by now.
after(async () => {
  for (const dir of dataDirs) await rm(dir, { recursive: true, force: true });
  if (!databases.length) return;
  const admin = new pg.Client(serverConnection('postgres'));
  await admin.connect();
  for (const name of databases) await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.end();
});

/**
 * Environment values for a service or command started outside the test app: a data directory of
 * its own and, on a PostgreSQL server, an empty database of its own with the settings server mode
 * requires. Both are removed when the test file ends. `values` override the defaults.
 */
export async function standaloneValues(prefix: string, values: Record<string, string> = {}): Promise<{ dataDir: string; values: Record<string, string> }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), `drover-${prefix}-`));
  dataDirs.push(dataDir);
  const base: Record<string, string> = { SVC_DATA_DIR: dataDir };
  if (serverMode()) {
    const name = `drover_${prefix.replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client(serverConnection('postgres'));
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    databases.push(name);
    Object.assign(base, {
      POSTGRES_HOST: process.env.POSTGRES_HOST!,
      POSTGRES_PORT: process.env.POSTGRES_PORT ?? '5432',
      POSTGRES_USER: process.env.POSTGRES_USER ?? 'postgres',
      POSTGRES_PASSWORD: process.env.POSTGRES_PASSWORD ?? 'unused',
      POSTGRES_DB: name,
      SVC_SECRET_KEY: `${prefix}-test-key`,
      SVC_BROADCAST_WEBSOCKET_SECRET: `${prefix}-test-broadcast`,
      SVC_ADMIN_PASSWORD: `${prefix}-admin-pw`,
      SVC_CSRF_TRUSTED_ORIGINS: 'https://localhost',
    });
  }
  return { dataDir, values: { ...base, ...values } };
}

/** Runs `drover manage <args>` in this process, collecting what it prints. */
export async function manage(env: EnvConfig, ...args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runManageCommand(env, args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

/** Opens the data directory's database between commands (an embedded database serves one process at a time). */
export async function inspect<T>(env: EnvConfig, fn: (services: Services) => Promise<T>): Promise<T> {
  const services = await openServices(env);
  try {
    return await fn(services);
  } finally {
    await services.db.close();
  }
}
