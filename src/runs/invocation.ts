import type { Queryable } from '../db/database.ts';
import { scrub } from './exec.ts';

/** What AWX shows in place of a hidden value. */
export const HIDDEN_VALUE = '**********';

/** Names whose values AWX hides (build_safe_env), and a URL's password. */
const SECRET_NAME = /API|TOKEN|KEY|SECRET|PASS/i;
const URL_PASSWORD = /^(.*?:\/\/[^:/@]+:)(.*?)(@.*)$/;

/**
 * The environment of a run as it may be shown (job_env): AWX's rules (values of names that look
 * secret hidden, except AWS_ACCESS_KEY_ID and Ansible's own settings; passwords in URLs hidden),
 * and any value holding one of the run's secrets (credential inputs, passwords) hidden whatever
 * its name.
 */
export function shownEnvironment(env: Record<string, string>, secrets: readonly string[]): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    const holdsSecret = secrets.some((secret) => secret.length >= 3 && value.includes(secret));
    if (holdsSecret) shown[name] = HIDDEN_VALUE;
    else if (name === 'AWS_ACCESS_KEY_ID' || (name.startsWith('ANSIBLE_') && !name.startsWith('ANSIBLE_NET') && !name.startsWith('ANSIBLE_GALAXY_SERVER'))) shown[name] = value;
    else if (SECRET_NAME.test(name)) shown[name] = HIDDEN_VALUE;
    else shown[name] = value.replace(URL_PASSWORD, `$1${HIDDEN_VALUE}$3`);
  }
  return shown;
}

export interface Invocation {
  /** The command the run executes, as a list of arguments. */
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  /** Values never to show (the run's credential inputs and passwords). */
  secrets: readonly string[];
}

/**
 * Stores what a run executes (AWX's job_args, job_cwd, job_env) as it starts: secrets in the
 * arguments replaced by $encrypted$, the environment as shownEnvironment leaves it.
 */
export async function recordInvocation(db: Queryable, runId: number, invocation: Invocation): Promise<void> {
  const args = invocation.args.map((arg) => scrub(arg, invocation.secrets));
  await db.query('UPDATE unified_jobs SET job_args = $2, job_cwd = $3, job_env = $4 WHERE id = $1', [
    runId,
    JSON.stringify(args),
    invocation.cwd,
    JSON.stringify(shownEnvironment(invocation.env, invocation.secrets)),
  ]);
}
