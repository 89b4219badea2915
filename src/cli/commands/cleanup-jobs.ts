import type { Queryable } from '../../db/database.ts';
import { parseOptions, UsageError, withServices, type Command } from '../command.ts';

/** The run kinds cleanup_jobs handles: its option, the unified job kind and how it is reported. */
const KINDS = [
  { option: 'jobs', kind: 'job', label: 'jobs' },
  { option: 'project-updates', kind: 'project_update', label: 'project updates' },
  { option: 'inventory-updates', kind: 'inventory_update', label: 'inventory updates' },
  { option: 'ad-hoc-commands', kind: 'ad_hoc_command', label: 'ad hoc commands' },
] as const;

const DEFAULT_DAYS = 90;
const BATCH = 1_000;

/**
 * Runs created before the cutoff, split into those to delete and those kept: unfinished runs, and
 * the latest update of each project and inventory source (what their status and last_update show).
 */
const CANDIDATES = `
  SELECT u.id, (u.status IN ('new', 'pending', 'waiting', 'running')
    OR EXISTS (SELECT 1 FROM projects p WHERE p.last_job_id = u.id OR p.current_job_id = u.id)
    OR EXISTS (SELECT 1 FROM inventory_sources s WHERE s.last_job_id = u.id OR s.current_job_id = u.id)) AS kept
  FROM unified_jobs u
  WHERE u.kind = $1 AND u.created < now() - make_interval(days => $2)`;

function parseDays(value: string | undefined): number {
  if (value === undefined) return DEFAULT_DAYS;
  if (!/^\d+$/.test(value)) throw new UsageError(`--days must be a whole number of days (0 or more), got "${value}"`);
  return Number(value);
}

/** Deletes (in batches, each in its own statement) the runs of one kind to delete; answers the counts. */
async function cleanupKind(db: Queryable, kind: string, days: number, dryRun: boolean): Promise<{ deleted: number; skipped: number }> {
  const [{ deletable, kept }] = await db.query<{ deletable: number; kept: number }>(
    `SELECT count(*) FILTER (WHERE NOT c.kept)::int AS deletable, count(*) FILTER (WHERE c.kept)::int AS kept FROM (${CANDIDATES}) c`,
    [kind, days],
  );
  if (dryRun || deletable === 0) return { deleted: deletable, skipped: kept };
  let deleted = 0;
  for (;;) {
    const rows = await db.query(
      `DELETE FROM unified_jobs WHERE id IN (SELECT c.id FROM (${CANDIDATES}) c WHERE NOT c.kept ORDER BY c.id LIMIT ${BATCH}) RETURNING id`,
      [kind, days],
    );
    deleted += rows.length;
    if (rows.length < BATCH) return { deleted, skipped: kept };
  }
}

export const cleanupJobs: Command = {
  name: 'cleanup_jobs',
  summary: 'Delete finished jobs, project updates, inventory updates and ad hoc commands older than some days',
  usage: '[--days N] [--dry-run] [--jobs] [--project-updates] [--inventory-updates] [--ad-hoc-commands]',
  async run({ env, args, io }) {
    const { values } = parseOptions(args, {
      days: { type: 'string' },
      'dry-run': { type: 'boolean' },
      ...Object.fromEntries(KINDS.map((k) => [k.option, { type: 'boolean' as const }])),
    });
    const days = parseDays(values.days as string | undefined);
    const dryRun = values['dry-run'] === true;
    const chosen = KINDS.filter((k) => (values as Record<string, unknown>)[k.option] === true);
    const kinds = chosen.length ? chosen : KINDS;
    await withServices(env, async ({ db }) => {
      for (const k of kinds) {
        const { deleted, skipped } = await cleanupKind(db, k.kind, days, dryRun);
        io.out(dryRun ? `${k.label}: ${deleted} would be deleted, ${skipped} would be skipped.` : `${k.label}: ${deleted} deleted, ${skipped} skipped.`);
      }
    });
    return 0;
  },
};
