/**
 * Which runs an analytics question counts: finished jobs (kind job, so neither workflow jobs nor
 * other run kinds) whose end lies in the period, narrowed to those the caller may see by the job
 * resource's own access policy, the one /api/v2/jobs/ lists with.
 */
import type { Services, RequestContext } from '../../api/context.ts';
import { badRequest } from '../../api/errors.ts';
import { Params } from '../../api/sql.ts';
import { PgError, pgErrorCode } from '../../db/database.ts';

export const FINISHED = ['successful', 'failed', 'error', 'canceled'] as const;

/** The runs counted, as a SQL condition over `alias` (a row of unified_jobs), with its parameters. */
export interface RunScope {
  where: string;
  /** The values of its placeholders: $1, $2... */
  values: readonly unknown[];
}

export async function runScope(services: Services, ctx: RequestContext, start: Date, alias = 'j'): Promise<RunScope> {
  const jobs = services.resources.get('job');
  const params = new Params();
  const conditions = [
    `${alias}.kind = 'job'`,
    `${alias}.finished >= ${params.add(start.toISOString())}::timestamptz`,
    `${alias}.status IN (${FINISHED.map((s) => `'${s}'`).join(', ')})`,
  ];
  if (jobs.access.listRefusal?.(ctx)) conditions.push('false');
  else {
    await jobs.access.prepare?.(ctx, services.db);
    const visible = jobs.access.visible(ctx, alias, params);
    if (visible) conditions.push(visible);
  }
  return { where: conditions.join(' AND '), values: params.values };
}

/** The hosts the caller may see, by the host resource's access policy, as a condition over `alias`. */
export async function hostScope(services: Services, ctx: RequestContext, alias: string, params: Params): Promise<string> {
  const hosts = services.resources.get('host');
  if (hosts.access.listRefusal?.(ctx)) return 'false';
  await hosts.access.prepare?.(ctx, services.db);
  return hosts.access.visible(ctx, alias, params) ?? 'true';
}

/** Runs one analytics statement. */
export type Ask = <T extends object>(sql: string, params: readonly unknown[]) => Promise<T[]>;

/**
 * Statements stopped past LIST_QUERY_TIMEOUT, as lists are (src/api/list.ts), so that a question
 * over a very large history ends with a 400 instead of holding the database (on the embedded
 * database, its one connection) for long.
 */
export function budgetedAsk(services: Services): Ask {
  const seconds = Number(services.settings.get('LIST_QUERY_TIMEOUT') ?? 5);
  return async <T extends object>(sql: string, params: readonly unknown[]) => {
    try {
      return await services.db.queryWithTimeout<T>(sql, params, seconds * 1000);
    } catch (err) {
      if (pgErrorCode(err) === PgError.queryCanceled) throw badRequest(`The question took too long (over ${seconds} second${seconds === 1 ? '' : 's'}); ask for a shorter period.`);
      throw err;
    }
  };
}
