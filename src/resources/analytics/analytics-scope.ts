/**
 * Which runs an analytics question counts: finished jobs (kind job, so neither workflow jobs nor
 * other run kinds) whose end lies in the period, narrowed to those the caller may see by the job
 * resource's own readers (src/runs/run-resource.ts runReaders), the ones /api/v2/jobs/ lists.
 *
 * The questions read the day totals (migration 0044: per UTC day and job template, kept as jobs
 * finish) of the templates the caller reads; the runs shown to the caller alone (run_viewers), whose
 * templates the caller does not read, are added one by one from the jobs themselves.
 */
import type { Services, RequestContext } from '../../api/context.ts';
import { badRequest } from '../../api/errors.ts';
import { Params } from '../../api/sql.ts';
import { PgError, pgErrorCode } from '../../db/database.ts';
import { runReaders } from '../../runs/run-resource.ts';

/** The runs counted, as the SQL of their totals, with its parameters. */
export interface RunScope {
  params: Params;
  /** The first day counted, as a parameter. */
  firstDay: string;
  /** A condition over a totals row `t` for the templates counted, or null: every template. */
  templates: string | null;
  /** A condition over a job `j` for the runs counted one by one, or null: none. */
  shown: string | null;
}

export async function runScope(services: Services, ctx: RequestContext, start: Date): Promise<RunScope> {
  const params = new Params();
  const firstDay = `${params.add(start.toISOString().slice(0, 10))}::date`;
  if (services.resources.get('job').access.listRefusal?.(ctx)) return { params, firstDay, templates: 'false', shown: null };
  const readers = runReaders(ctx, params, 'job_template');
  if (!readers) return { params, firstDay, templates: null, shown: null };
  return {
    params,
    firstDay,
    templates: `t.job_template_id IN (${readers.owners})`,
    shown: `j.id IN (${readers.shown}) AND coalesce(j.job_template_id, 0) NOT IN (${readers.owners})`,
  };
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
