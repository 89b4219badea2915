import type { Database, Queryable } from '../db/database.ts';
import type { UnifiedJobRow } from '../db/tables.ts';
import { actorId, type RequestContext } from '../api/context.ts';
import { activityOfCreated } from '../activity/record.ts';
import { ident } from '../api/sql.ts';
import type { FinalStatus, RunKind, RunKindRef, RunKinds } from './run-kind.ts';
import { finalNotices, LIVE_CHANNEL, statusNoticePayload } from '../live/notices.ts';
import { replaceNul } from '../db/nul.ts';
import { writeStatusChange } from './status-change.ts';

export const ACTIVE_STATUSES = ['new', 'pending', 'waiting', 'running'] as const;

/** Whether a run in this status has not ended yet. */
export const isActiveStatus = (status: string | null | undefined): boolean => (ACTIVE_STATUSES as readonly string[]).includes(status ?? '');
export const FINAL_STATUSES = ['successful', 'failed', 'error', 'canceled'] as const;
/** Final statuses that count as a failure (a dependency ending so fails the jobs waiting for it). */
export const UNSUCCESSFUL_STATUSES: readonly string[] = ['failed', 'error', 'canceled'];

/** The channel a committed new or finished run is announced on: every node's dispatcher listens to it. */
export const DISPATCH_CHANNEL = 'drover_dispatch';
/** The channel a cancel is announced on (the payload is the run's id): the node running it stops it. */
export const CANCEL_CHANNEL = 'drover_cancel';

/** Tells every dispatcher, once the transaction commits, to look for work. */
export const wakeDispatchers = (tx: Queryable) => tx.query(`SELECT pg_notify('${DISPATCH_CHANNEL}', '')`);

/**
 * Creates a run of `kind` (status pending) from column values and queues it: for runs the system
 * starts (a job's dependency updates). What a user launches goes through the launch service.
 */
export async function createRun(
  tx: Queryable,
  ctx: RequestContext,
  kind: RunKindRef,
  values: Record<string, unknown>,
  link?: (row: UnifiedJobRow) => Promise<void>,
): Promise<UnifiedJobRow> {
  const row = await insertRun(tx, ctx, kind, values);
  await queueRun(tx, kind, row, link);
  return row;
}

/**
 * Stores a new run of `kind` (status pending) with its activity stream entry, in one statement;
 * nothing runs it until it is queued.
 */
export async function insertRun(tx: Queryable, ctx: RequestContext, kind: RunKindRef, values: Record<string, unknown>): Promise<UnifiedJobRow> {
  return (await insertRuns(tx, ctx, kind, [values]))[0];
}

/** insertRun for several runs of one kind in one statement; the rows answer in the order of `runs`. */
export async function insertRuns(tx: Queryable, ctx: RequestContext, kind: RunKindRef, runs: readonly Record<string, unknown>[]): Promise<UnifiedJobRow[]> {
  const columns = [...new Set(runs.flatMap((values) => Object.keys(values)))];
  const params: unknown[] = [kind.name, 'pending', actorId(ctx)];
  const param = (value: unknown) => `$${params.push(value)}`;
  const tuples = runs.map((values) => `(${columns.map((c) => (Object.hasOwn(values, c) ? param(values[c]) : 'DEFAULT')).join(', ')}, $1, $2, $3, $3)`);
  const insert = `INSERT INTO unified_jobs (${[...columns, 'kind', 'status', 'created_by_id', 'modified_by_id'].map(ident).join(', ')}) VALUES ${tuples.join(', ')} RETURNING *`;
  const activity = activityOfCreated(ctx, { operation: 'create', object1: kind.name }, 'run', `jsonb_build_object('name', run.name, 'status', 'pending')`, params.length + 1);
  const rows = await tx.query<UnifiedJobRow>(
    activity ? `WITH run AS (${insert}), activity AS (${activity.sql}) SELECT * FROM run` : insert,
    [...params, ...(activity?.params ?? [])],
  );
  // Ids are drawn in the order of the VALUES list.
  return rows.sort((a, b) => a.id - b.id);
}

/**
 * Queues a stored pending run: stores what belongs to it, then, in one statement, makes its
 * template follow it and announces it (its status, then a wake-up to the dispatchers: both are
 * delivered once the transaction commits). The template's update locks the template's row until
 * commit, so it comes last.
 */
export async function queueRun(tx: Queryable, kind: Pick<RunKind, 'templateTable'>, row: UnifiedJobRow, link?: (row: UnifiedJobRow) => Promise<void>): Promise<void> {
  await link?.(row);
  await queueRuns(tx, kind, [row]);
}

/** queueRun for stored runs of one template, in one statement: the template follows the last. */
export async function queueRuns(tx: Queryable, kind: Pick<RunKind, 'templateTable'>, rows: readonly UnifiedJobRow[]): Promise<void> {
  if (!rows.length) return;
  const last = rows[rows.length - 1];
  await writeStatusChange(tx, {
    row: last,
    kind,
    follow: { current_job_id: last.id, status: 'pending' },
    notices: [...rows.map((row) => [LIVE_CHANNEL, statusNoticePayload(row)] as const), [DISPATCH_CHANNEL, '']],
  });
}

/** Starts a claimed run; it records the execution environment it runs as. Answers nothing when the run was no longer waiting. */
export async function markRunning(
  tx: Queryable, kind: RunKind, job: Pick<UnifiedJobRow, 'id'>, executionEnvironmentId: number | null,
): Promise<UnifiedJobRow | undefined> {
  const [row] = await tx.query<UnifiedJobRow>(
    `UPDATE unified_jobs SET status = 'running', started = now(), modified = now(), execution_environment_id = $2
     WHERE id = $1 AND status = 'waiting' RETURNING *`,
    [job.id, executionEnvironmentId],
  );
  if (row) await writeStatusChange(tx, { row, kind, event: 'started', follow: { status: 'running' }, notices: [[LIVE_CHANNEL, statusNoticePayload(row)]] });
  return row;
}

export interface Finish {
  status: FinalStatus;
  explanation?: string;
  traceback?: string;
  updates?: Record<string, unknown>;
  emittedEvents?: number;
}

/** A run's explanation after what its launch's gates warned about (launch_warnings), which nothing writes over. */
export const explanationAfterWarnings = (warnings: string, explanation: string): string =>
  !warnings ? explanation : !explanation ? warnings : `${warnings}\n${explanation}`;

/** explanationAfterWarnings in SQL, for an UPDATE of unified_jobs setting the explanation to `value`. */
export const explanationAfterWarningsSql = (value: string): string =>
  `CASE WHEN launch_warnings = '' THEN ${value} WHEN ${value} = '' THEN launch_warnings ELSE launch_warnings || E'\\n' || ${value} END`;

/** Stores a run's final state, and its template's, in one transaction. */
export async function finishRun(tx: Queryable, kinds: RunKinds, job: Pick<UnifiedJobRow, 'id' | 'kind'>, finish: Finish): Promise<UnifiedJobRow> {
  const kind = kinds.get(job.kind);
  const updates = finish.updates ?? {};
  const columns = Object.keys(updates);
  const sets = columns.map((c, i) => `${ident(c)} = $${i + 7}`);
  const [row] = await tx.query<UnifiedJobRow>(
    `UPDATE unified_jobs SET status = $2, failed = $3, job_explanation = ${explanationAfterWarningsSql('$4::text')}, result_traceback = $5, emitted_events = $6,
       event_processing_finished = true, finished = now(), cancel_flag = cancel_flag OR $2 = 'canceled',
       elapsed = round(extract(epoch FROM now() - coalesce(started, now()))::numeric, 3), modified = now()
       ${sets.length ? `, ${sets.join(', ')}` : ''}
     WHERE id = $1 RETURNING *`,
    // An explanation may quote a process's output, NUL characters included (which text cannot hold).
    [job.id, finish.status, finish.status !== 'successful', replaceNul(finish.explanation ?? ''), replaceNul(finish.traceback ?? ''), finish.emittedEvents ?? 0,
      ...columns.map((c) => updates[c])],
  );
  const failed = finish.status !== 'successful';
  const tracksUpdates = kind.templateIsSource !== false;
  // The template follows, the run's end is announced and the dispatchers are woken (runs blocked
  // behind this one may start now), before afterFinish, which reads the template (an inventory's
  // sources with failures).
  await writeStatusChange(tx, {
    row,
    kind,
    event: failed ? 'error' : 'success',
    follow: {
      status: finish.status,
      last_job_id: row.id,
      last_job_run: row.finished,
      last_job_failed: failed,
      ...(tracksUpdates && { last_update_failed: failed, last_updated: row.finished }),
      current_job_id: null,
    },
    notices: [...finalNotices(row).map((n) => [LIVE_CHANNEL, n] as const), [DISPATCH_CHANNEL, '']],
  });
  await kind.afterFinish?.(tx, row, kinds.resources);
  for (const follower of kinds.followers) await follower.finished(tx, row);
  return row;
}

/** Fails runs whose node stopped under them (the reapers), each with its events counted and its template following. */
export async function failCutOffRuns(
  db: Database, kinds: RunKinds, runs: readonly UnifiedJobRow[], explanation: (run: UnifiedJobRow) => string,
): Promise<number> {
  for (const run of runs) {
    await db.transaction((tx) => finishRun(tx, kinds, run, { status: 'failed', explanation: explanation(run), emittedEvents: run.emitted_events }));
  }
  return runs.length;
}
