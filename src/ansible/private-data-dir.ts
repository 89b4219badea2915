import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Queryable } from '../db/database.ts';
import type { UnifiedJobRow } from '../db/tables.ts';
import { inventoryScript } from '../inventory/script.ts';
import { separatedScript } from '../inventory/separated-script.ts';
import { jobInventoryIds } from '../resources/job-templates/template-inventories.ts';
import { parseVariables } from '../inventory/variables.ts';
import { credentialInjection } from '../resources/credentials/injection.ts';
import type { LookupContext } from '../resources/credentials/dynamic-inputs.ts';
import { decryptedInputs } from '../resources/credentials/credential-use.ts';
import { machineAccess, vaultAccess, type MachineAccess } from './machine-credential.ts';
import { launchPasswordsOf, withLaunchPasswords } from './credential-passwords.ts';
import { decryptSecret, isEncryptedSecret } from '../secrets/encryption.ts';
import { passwordPurpose } from '../resources/job-templates/survey-spec.ts';
import { extraVarsYaml, type TrustedVars } from './extra-vars-file.ts';
import { assertOptionValues, optionArgument, PLAYBOOK_OPTION_FIELDS } from './option-values.ts';

export interface PreparedRun {
  /** Everything ansible-runner needs, under the run's private directory. */
  dir: string;
  cmdline: string[];
  env: Record<string, string>;
  secrets: string[];
}

const write = (file: string, content: string) => writeFile(file, content, { mode: 0o600 });

/** Options of the ansible command line every run kind takes from its own fields (check mode, forks...). */
export function runOptions(run: UnifiedJobRow): string[] {
  const args: string[] = [];
  if (run.job_type === 'check') args.push('--check');
  if (run.diff_mode) args.push('--diff');
  if (run.become_enabled) args.push('--become');
  if (run.forks > 0) args.push('--forks', String(run.forks));
  if (run.verbosity > 0) args.push(`-${'v'.repeat(Math.min(run.verbosity, 5))}`);
  return args;
}

/** Command line options of a job's own fields (limit, tags, check mode...), each value inside its option's argument. */
function jobOptions(job: UnifiedJobRow): string[] {
  assertOptionValues(job, PLAYBOOK_OPTION_FIELDS);
  const args: string[] = [];
  if (job.limit) args.push(optionArgument('--limit', job.limit));
  if (job.job_tags) args.push(optionArgument('--tags', job.job_tags));
  if (job.skip_tags) args.push(optionArgument('--skip-tags', job.skip_tags));
  if (job.start_at_task) args.push(optionArgument('--start-at-task', job.start_at_task));
  if (job.force_handlers) args.push('--force-handlers');
  return [...args, ...runOptions(job)];
}

/**
 * The run's inventory sources in ansible-runner's inventory directory, which it passes to Ansible:
 * `hosts`, a script answering the primary inventory, then one script per extra inventory of a job
 * (`hosts_01`...), each kept apart from the others (separated-script.ts). A slice takes its share of
 * each inventory's hosts.
 */
async function writeInventories(db: Queryable, job: UnifiedJobRow, privateDir: string, inventoryDir: string, subset: string | undefined): Promise<void> {
  const extra = await jobInventoryIds(db, job.id);
  // Its callers refuse a run without an inventory before preparing it.
  const inventories = [job.inventory_id!, ...extra];
  for (const [index, inventoryId] of inventories.entries()) {
    const script = await inventoryScript(db, inventoryId, { hostvars: true, towervars: true, all: false, subset });
    const suffix = index === 0 ? '' : `_${String(index).padStart(2, '0')}`;
    const json = path.join(privateDir, `inventory${suffix}.json`);
    await write(json, JSON.stringify(extra.length ? separatedScript(script, inventoryId) : script));
    await writeFile(path.join(inventoryDir, `hosts${suffix}`), `#!/bin/sh\nexec cat '${json}'\n`, { mode: 0o700 });
  }
}

/**
 * Writes ansible-runner's private data directory for a run (job or ad hoc command): the inventory (the inventory script
 * view, run through a script so Ansible reads its _meta), extra vars, environment, credentials
 * (SSH key, prompt answers, cloud injections) and command line. Secret files are 0600 inside the
 * run's private directory, which is removed after the run. `metaVars` (AWX's awx_meta_vars) go over
 * the run's extra vars. Extra vars are !unsafe except the `trusted` ones (see extra-vars-file.ts);
 * an ad hoc command trusts none.
 */
export async function prepareRunnerDir(
  db: Queryable, job: UnifiedJobRow, privateDir: string, baseEnv: Record<string, string>, metaVars: Record<string, unknown>, trusted: TrustedVars, lookups: LookupContext,
): Promise<PreparedRun> {
  const dir = path.join(privateDir, 'runner');
  await mkdir(path.join(dir, 'env'), { recursive: true, mode: 0o700 });
  await mkdir(path.join(dir, 'inventory'), { recursive: true, mode: 0o700 });
  // A slice of a sliced job runs against its share of the hosts (AWX's round-robin by host name).
  const subset = job.job_slice_count > 1 && job.job_slice_number > 0 ? `slice${job.job_slice_number}of${job.job_slice_count}` : undefined;
  await writeInventories(db, job, privateDir, path.join(dir, 'inventory'), subset);

  const credentials = await db.query<{ credential_id: number }>('SELECT credential_id FROM unified_job_credentials WHERE unified_job_id = $1 ORDER BY credential_id', [job.id]);
  const accesses: MachineAccess[] = [];
  const cloudIds: number[] = [];
  const launchPasswords = await launchPasswordsOf(db, job.id);
  for (const { credential_id } of credentials) {
    const { kind, inputs } = await decryptedInputs(db, credential_id, lookups);
    if (kind === 'ssh') accesses.push(machineAccess(withLaunchPasswords(kind, inputs, launchPasswords)));
    else if (kind === 'vault') accesses.push(vaultAccess(withLaunchPasswords(kind, inputs, launchPasswords)));
    else cloudIds.push(credential_id);
  }
  const injected = await credentialInjection(db, cloudIds, privateDir, lookups);
  const surveySecrets: string[] = [];
  const jobVars = parseVariables(job.extra_vars);
  for (const variable of Object.keys(job.survey_passwords ?? {})) {
    const stored = jobVars[variable];
    if (!isEncryptedSecret(stored)) continue;
    jobVars[variable] = decryptSecret(passwordPurpose(variable), stored);
    surveySecrets.push(jobVars[variable] as string);
  }
  // The meta variables (awx_job_id...) over the run's own, as AWX's build_extra_vars_file updates them last.
  await write(path.join(dir, 'env', 'extravars'), extraVarsYaml({ ...jobVars, ...metaVars }, injected.extraVars, trusted));
  const env = { ...baseEnv, ...injected.env, PYTHONUNBUFFERED: '1', ANSIBLE_FORCE_COLOR: 'True', ANSIBLE_HOST_KEY_CHECKING: 'False' };
  await write(path.join(dir, 'env', 'envvars'), JSON.stringify(env));
  const passwords = Object.assign({}, ...accesses.map((a) => a.passwords));
  if (Object.keys(passwords).length) await write(path.join(dir, 'env', 'passwords'), JSON.stringify(passwords));
  const sshKey = accesses.find((a) => a.sshKey)?.sshKey;
  if (sshKey) await write(path.join(dir, 'env', 'ssh_key'), sshKey.endsWith('\n') ? sshKey : `${sshKey}\n`);
  const cmdline = accesses.flatMap((a) => a.cmdline);
  return { dir, cmdline, env, secrets: [...injected.secrets, ...accesses.flatMap((a) => a.secrets), ...surveySecrets] };
}

/** The runner directory of a playbook job: the shared parts plus the job's own options. */
export async function preparePlaybookRun(
  db: Queryable, job: UnifiedJobRow, privateDir: string, baseEnv: Record<string, string>, metaVars: Record<string, unknown>, trusted: TrustedVars, lookups: LookupContext,
): Promise<PreparedRun> {
  const options = jobOptions(job);
  const prepared = await prepareRunnerDir(db, job, privateDir, baseEnv, metaVars, trusted, lookups);
  return { ...prepared, cmdline: [...prepared.cmdline, ...options] };
}
