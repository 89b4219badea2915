import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import type { EnvConfig } from '../../src/config/env.ts';
import type { Database } from '../../src/db/database.ts';
import { EmbeddedDatabase } from '../../src/db/embedded.ts';
import { migrate, migrationsFingerprint } from '../../src/db/migrate.ts';
import { ServerDatabase } from '../../src/db/server.ts';
import { bootstrap } from '../../src/server/bootstrap.ts';
import { loadSettings } from '../../src/config/settings/store.ts';
import { settingRegistry } from '../../src/composition/settings.ts';
import { serviceCaches } from '../../src/composition/caches.ts';

/**
 * The module of bootstrap (the same as imported above), relative to the repository root: the
 * cached templates are keyed on it and on everything it imports, directly or not.
 */
const BOOTSTRAP_ENTRY = 'src/server/bootstrap.ts';

export const ADMIN = { username: 'admin', password: 'admin-password' };

const repositoryRoot = path.resolve(import.meta.dirname, '../..');
const cacheDir = path.join(repositoryRoot, '.cache');

/** The specifiers of a module's static imports and re-exports, its bare imports and its dynamic imports of a literal. */
const IMPORT_PATTERNS = [
  /\b(?:import|export)\s+(?:type\s+)?[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
  /\bimport\s*['"]([^'"]+)['"]/g,
  /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
];

const isFile = (file: string) => stat(file).then((s) => s.isFile(), () => false);

/** The file a relative specifier names (a .js specifier may stand for its .ts source); null for packages, built-ins and files not found. */
async function resolveImport(importer: string, specifier: string): Promise<string | null> {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return null;
  const base = path.resolve(path.dirname(importer), specifier);
  for (const candidate of [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, path.join(base, 'index.ts')]) {
    if (await isFile(candidate)) return candidate;
  }
  return null;
}

/** Every source file `entry` imports, followed transitively (itself included): path -> contents. Files that cannot be read are left out. */
async function importGraph(entry: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const pending = [entry];
  while (pending.length) {
    const file = pending.pop()!;
    if (files.has(file)) continue;
    const contents = await readFile(file).catch(() => null);
    if (!contents) continue;
    files.set(file, contents);
    if (!/\.[cm]?tsx?$/.test(file)) continue;
    const text = contents.toString('utf8');
    for (const pattern of IMPORT_PATTERNS) {
      for (const [, specifier] of text.matchAll(pattern)) {
        const target = await resolveImport(file, specifier);
        if (target && !files.has(target)) pending.push(target);
      }
    }
  }
  return files;
}

let fingerprint: Promise<string> | undefined;

/**
 * Keys cached templates: the migrations and every source bootstrap imports, directly or not (a
 * change to any of them makes a new template, as a new migration does).
 */
function templateFingerprint(): Promise<string> {
  fingerprint ??= (async () => {
    const entry = path.join(repositoryRoot, BOOTSTRAP_ENTRY);
    if (!(await isFile(entry))) throw new Error(`BOOTSTRAP_ENTRY in test/helpers/database.ts names ${BOOTSTRAP_ENTRY}, which does not exist`);
    const hash = createHash('sha256').update(await migrationsFingerprint());
    const files = await importGraph(entry);
    for (const file of [...files.keys()].sort()) {
      hash.update('\0').update(path.relative(repositoryRoot, file)).update('\0').update(files.get(file)!);
    }
    return hash.digest('hex').slice(0, 16);
  })();
  return fingerprint;
}

export const serverMode = () => Boolean(process.env.POSTGRES_HOST);

export function serverConnection(database: string) {
  return {
    host: process.env.POSTGRES_HOST!,
    port: Number(process.env.POSTGRES_PORT ?? 5432),
    user: process.env.POSTGRES_USER ?? 'postgres',
    password: process.env.POSTGRES_PASSWORD,
    database,
  };
}

/** Migrated and bootstrapped (admin user, Default organization, default execution environment): every test database starts as a copy of this. */
async function prepare(db: Database, env: EnvConfig): Promise<void> {
  await migrate(db);
  const bootEnv = { ...env, adminUser: ADMIN.username, adminPassword: ADMIN.password };
  await bootstrap({ db, env: bootEnv, settings: await loadSettings(db, bootEnv, settingRegistry()), caches: serviceCaches() });
}

async function embeddedTemplate(env: EnvConfig): Promise<Blob> {
  const file = path.join(cacheDir, `pglite-template-${await templateFingerprint()}.tar.gz`);
  try {
    return new Blob([await readFile(file)]);
  } catch {
    const db = await EmbeddedDatabase.open({});
    await prepare(db, env);
    const dump = await db.dump();
    await db.close();
    await mkdir(cacheDir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, Buffer.from(await dump.arrayBuffer()));
    await rename(tmp, file);
    return dump;
  }
}

async function serverTemplate(env: EnvConfig): Promise<string> {
  const name = `drover_template_${await templateFingerprint()}`;
  const admin = new pg.Client(serverConnection('postgres'));
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock(7341103)');
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!exists.rowCount) {
      await admin.query(`CREATE DATABASE ${name}`);
      const db = new ServerDatabase(serverConnection(name));
      try {
        await prepare(db, env);
      } catch (err) {
        await db.close();
        await admin.query(`DROP DATABASE ${name}`);
        throw err;
      }
      await db.close();
    }
    // Templates of earlier migration sets are of no further use; one still being copied stays.
    const stale = await admin.query(`SELECT datname FROM pg_database WHERE datname LIKE 'drover\\_template\\_%' AND datname <> $1`, [name]);
    for (const { datname } of stale.rows) await admin.query(`DROP DATABASE IF EXISTS ${datname}`).catch(() => undefined);
    await admin.query('SELECT pg_advisory_unlock(7341103)');
  } finally {
    await admin.end();
  }
  return name;
}

/** Builds the template once (the test runner calls this before any test file starts). */
export async function prepareTemplate(env: EnvConfig): Promise<void> {
  if (serverMode()) await serverTemplate(env);
  else await embeddedTemplate(env);
}

/** A fresh database for one test file, copied from the template; dropped again by close(). */
export async function freshDatabase(env: EnvConfig): Promise<Database> {
  if (!serverMode()) return EmbeddedDatabase.open({ loadDataDir: await embeddedTemplate(env) });
  const template = await serverTemplate(env);
  const name = `drover_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client(serverConnection('postgres'));
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  await admin.end();
  const db = new ServerDatabase(serverConnection(name));
  const close = db.close.bind(db);
  db.close = async () => {
    await close();
    const dropper = new pg.Client(serverConnection('postgres'));
    await dropper.connect();
    await dropper.query(`DROP DATABASE IF EXISTS ${name}`);
    await dropper.end();
  };
  return db;
}
