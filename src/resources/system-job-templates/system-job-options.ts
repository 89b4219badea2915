import type { RequestContext } from '../../api/context.ts';
import { seesEverything } from '../../api/access.ts';

/** What a system job may be given (AWX's SystemJobTemplate._accept_or_ignore_variables): only its options, days a whole number. */

export const SYSTEM_JOB_TYPES = [
  ['cleanup_jobs', 'Remove jobs older than a certain number of days'],
  ['cleanup_activitystream', 'Remove activity stream entries older than a certain number of days'],
  ['cleanup_sessions', 'Removes expired browser sessions from the database'],
  ['cleanup_tokens', 'Removes expired OAuth 2 access tokens and refresh tokens'],
] as const;

const ALLOWED = ['days', 'older_than', 'granularity'];

/** Problems of a system job's extra vars, as AWX words them. */
export function systemJobVariableProblems(jobType: string, vars: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const unallowed = Object.keys(vars).filter((k) => !ALLOWED.includes(k));
  if (unallowed.length) problems.push(`Variables ${unallowed.join(', ')} are not allowed for system jobs.`);
  if ((jobType === 'cleanup_jobs' || jobType === 'cleanup_activitystream') && 'days' in vars && daysOf(vars.days) === null) {
    problems.push('days must be a positive integer.');
  }
  return problems;
}

/** A days value as a whole number of 0 or more ("120" and 120 alike), or null. */
export function daysOf(value: unknown): number | null {
  if (typeof value === 'boolean' || value === null || value === undefined) return null;
  const n = typeof value === 'string' && /^\s*\d+(\.0*)?\s*$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : null;
}

/** AWX refuses the lists of system job templates and system jobs outright to all but superusers and system auditors. */
export const superuserOrAuditorList = (ctx: RequestContext): string | null => (seesEverything(ctx) ? null : 'Superuser privileges needed.');
