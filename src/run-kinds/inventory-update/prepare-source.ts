import { chmod, mkdir, realpath, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import YAML from 'yaml';
import type { Queryable } from '../../db/database.ts';
import type { ProjectRow, UnifiedJobRow } from '../../db/tables.ts';
import { parseVariables } from '../../inventory/variables.ts';
import { requirementsSearchPaths } from '../../projects/paths.ts';
import { filesForRun, type CacheRun } from '../../projects/revision-cache.ts';
import { decryptedInputs } from '../../resources/credentials/credential-use.ts';
import { credentialInjection } from '../../resources/credentials/injection.ts';
import { lookupsOf, type LookupContext, type LookupServices } from '../../resources/credentials/dynamic-inputs.ts';
import { pluginConfig, pluginEnv } from '../../resources/inventory-sources/plugin-config.ts';
import { BLOCKED_SOURCE_ENV, CLOUD_KINDS } from '../../resources/inventory-sources/source-kinds.ts';
import { prepareConstructed } from './constructed-inputs.ts';

/** What `ansible-inventory` is run on, and with what, for one inventory update. */
export interface PreparedSource {
  /** The inventory path given to -i. */
  inventoryPath: string;
  /** Inventories given with -i before it (a constructed source's input inventories, in order). */
  inputPaths?: string[];
  /** Working directory and --playbook-dir (where group_vars and host_vars are found). */
  playbookDir: string;
  env: Record<string, string>;
  /** Values to hide wherever the run shows text. */
  secrets: string[];
  /** Columns stored on the update (the project update and revision an scm source read). */
  updates: Record<string, unknown>;
  /** Directories of the service host the update reads (a project's files and installed collections). */
  readable?: string[];
  /** Call when the update no longer reads them (the node may then drop that revision of the project). */
  release?: () => void;
}

/** What preparing an inventory update reads of it. */
export type SourceJob = Pick<UnifiedJobRow, 'id' | 'inventory_source_id' | 'source' | 'source_path' | 'source_vars' | 'scm_branch' | 'credential_id'>
  & Partial<Pick<UnifiedJobRow, 'inventory_id'>>;

/** Something about the source that makes the update fail before ansible-inventory runs; the message explains it. */
export class SourceProblem extends Error {}

/** AWX's standard inventory update environment. */
const STANDARD_ENV = {
  ANSIBLE_INVENTORY_UNPARSED_FAILED: 'True',
  ANSIBLE_INVENTORY_EXPORT: 'True',
  ANSIBLE_VERBOSE_TO_STDERR: 'True',
};

async function writePrivate(file: string, content: string, mode: number): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, content, { mode });
  await chmod(file, mode);
}

/**
 * The source's variables as environment variables (scm and file sources, as AWX for scm): every
 * key the run's environment does not set already and that is not blocked.
 */
function variablesAsEnv(vars: Record<string, unknown>, baseEnv: Record<string, string>, skip: string[] = []): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(vars)) {
    if (skip.includes(key) || key in baseEnv || BLOCKED_SOURCE_ENV.has(key)) continue;
    env[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return env;
}

async function injected(db: Queryable, job: Pick<SourceJob, 'credential_id'>, privateDir: string, lookups: LookupContext) {
  if (!job.credential_id) return { env: {}, secrets: [] as string[] };
  try {
    const injection = await credentialInjection(db, [job.credential_id], privateDir, lookups);
    return { env: injection.env, secrets: injection.secrets };
  } catch (err) {
    throw new SourceProblem(`The credential could not be used: ${(err as Error).message}`);
  }
}

/**
 * An scm source reads its project's files at the revision of the project's last update (or the
 * source's own scm_branch), as this node holds it or fetches it (src/projects/revision-cache.ts).
 */
/** Secret lookups of the update's credential, as its service's settings allow them. */
const sourceLookups = (run: CacheRun) => lookupsOf(run.services as LookupServices);

async function prepareScm(run: CacheRun, job: SourceJob, baseEnv: Record<string, string>): Promise<PreparedSource> {
  const db = run.db;
  const [project] = await db.query<ProjectRow>(
    `SELECT p.* FROM projects p JOIN inventory_sources s ON s.source_project_id = p.id WHERE s.id = $1`,
    [job.inventory_source_id],
  );
  if (!project) throw new SourceProblem('The inventory source has no project to read its inventory from.');
  if (project.scm_type !== '' && project.scm_revision === '') {
    throw new SourceProblem(`The project "${project.name}" has never been updated: update the project, then this inventory source.`);
  }
  const updates: Record<string, unknown> = { scm_revision: project.scm_revision };
  if (project.last_job_id && project.status === 'successful') updates.source_project_update_id = project.last_job_id;
  const branch = project.scm_type && job.scm_branch && job.scm_branch !== project.scm_branch ? job.scm_branch : null;
  const copy = await filesForRun(run, project, branch === null ? { revision: project.scm_revision } : { branch }, path.join(run.privateDir, 'project'));
  if ('problem' in copy) throw new SourceProblem(copy.problem);
  updates.scm_revision = copy.revision;
  try {
    return { ...(await scmInventory(job, project, copy.dir, copy.requirements, db, run.privateDir, baseEnv, sourceLookups(run))), updates, release: copy.release };
  } catch (err) {
    copy.release();
    throw err;
  }
}

async function scmInventory(
  job: SourceJob, project: ProjectRow, dir: string, requirements: string, db: Queryable, privateDir: string, baseEnv: Record<string, string>, lookups: LookupContext,
): Promise<Omit<PreparedSource, 'updates'>> {
  // Resolved with its links, so that a link in the repository cannot lead out of the project either.
  const root = await realpath(dir);
  const inventoryPath = await realpath(path.resolve(dir, job.source_path || '.')).catch(() => null);
  if (!inventoryPath) throw new SourceProblem(`The source path "${job.source_path}" does not exist in the project "${project.name}".`);
  if (inventoryPath !== root && !inventoryPath.startsWith(`${root}${path.sep}`)) throw new SourceProblem('The source path leaves the project directory.');
  const found = await stat(inventoryPath);
  const credential = await injected(db, job, privateDir, lookups);
  const env: Record<string, string> = { ...credential.env };
  Object.assign(env, variablesAsEnv(parseVariables(job.source_vars), { ...baseEnv, ...env }));
  // Collections the project's requirements installed come first, as AWX puts them.
  env.ANSIBLE_COLLECTIONS_PATHS = requirementsSearchPaths(requirements, baseEnv).ANSIBLE_COLLECTIONS_PATHS;
  return {
    inventoryPath,
    playbookDir: found.isDirectory() ? inventoryPath : path.dirname(inventoryPath),
    env,
    secrets: credential.secrets,
    readable: [root, requirements],
  };
}

/**
 * A `file` source keeps its inventory in its variables: `inventory` (INI or YAML text, or a
 * mapping in Ansible's YAML inventory form) or `script` (an executable inventory script); the
 * other keys are environment variables of the run.
 */
async function prepareFile(db: Queryable, job: SourceJob, baseEnv: Record<string, string>, privateDir: string, lookups: LookupContext): Promise<PreparedSource> {
  const vars = parseVariables(job.source_vars);
  const dir = path.join(privateDir, 'inventory');
  let inventoryPath: string;
  if (typeof vars.script === 'string') {
    inventoryPath = path.join(dir, 'script');
    await writePrivate(inventoryPath, vars.script, 0o700);
  } else if (typeof vars.inventory === 'string') {
    inventoryPath = path.join(dir, 'hosts');
    await writePrivate(inventoryPath, vars.inventory, 0o600);
  } else if (typeof vars.inventory === 'object' && vars.inventory !== null) {
    inventoryPath = path.join(dir, 'hosts.yml');
    await writePrivate(inventoryPath, YAML.stringify(vars.inventory, { lineWidth: 0 }), 0o600);
  } else {
    throw new SourceProblem('A file source needs "inventory" or "script" in its source_vars.');
  }
  const credential = await injected(db, job, privateDir, lookups);
  const env = { ...credential.env, ...variablesAsEnv(vars, { ...baseEnv, ...credential.env }, ['inventory', 'script']) };
  return { inventoryPath, playbookDir: dir, env, secrets: credential.secrets, updates: {} };
}

/** A cloud source: the plugin configuration AWX would generate, and the credential injected. */
export async function prepareCloud(db: Queryable, job: SourceJob, privateDir: string, lookups: LookupContext): Promise<PreparedSource> {
  const kind = CLOUD_KINDS[job.source];
  if (!job.credential_id && !kind.credentialOptional) throw new SourceProblem(`A credential is required for a ${job.source} source.`);
  const credential = await injected(db, job, privateDir, lookups);
  const inputs = job.credential_id && job.source === 'satellite6' ? (await decryptedInputs(db, job.credential_id, lookups)).inputs : null;
  const extra = pluginEnv(job.source, inputs);
  const config = pluginConfig(job.source, parseVariables(job.source_vars), credential.env);
  const dir = path.join(privateDir, 'inventory');
  const inventoryPath = path.join(dir, config.fileName);
  await writePrivate(inventoryPath, config.text, 0o600);
  const secrets = [...credential.secrets, ...(extra.FOREMAN_PASSWORD ? [extra.FOREMAN_PASSWORD] : [])];
  return {
    inventoryPath,
    playbookDir: dir,
    // Only the plugin of the generated configuration is tried, as AWX runs cloud sources.
    env: { ...credential.env, ...extra, ANSIBLE_INVENTORY_ENABLED: 'auto' },
    secrets,
    updates: {},
  };
}

/** Prepares the inventory an update reads, by kind. Throws SourceProblem when the update cannot run. */
export async function prepareSource(run: CacheRun, job: SourceJob, baseEnv: Record<string, string>): Promise<PreparedSource> {
  const { db, privateDir } = run;
  let prepared: PreparedSource;
  if (job.source === 'scm') prepared = await prepareScm(run, job, baseEnv);
  else if (job.source === 'file') prepared = await prepareFile(db, job, baseEnv, privateDir, sourceLookups(run));
  else if (CLOUD_KINDS[job.source]) prepared = await prepareCloud(db, job, privateDir, sourceLookups(run));
  else if (job.source === 'constructed') prepared = await prepareConstructed(db, job, job.inventory_id ?? 0, privateDir);
  else throw new SourceProblem(`Unknown inventory source kind "${job.source}".`);
  prepared.env = {
    ...prepared.env,
    ...STANDARD_ENV,
    INVENTORY_SOURCE_ID: String(job.inventory_source_id),
    INVENTORY_UPDATE_ID: String(job.id),
  };
  return prepared;
}
