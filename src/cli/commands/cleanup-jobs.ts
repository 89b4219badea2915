import { RUN_KINDS } from '../../composition/root.ts';
import { cleanupKinds, cleanupRuns as cleanupKind } from '../../runs/cleanup-runs.ts';
import { parseOptions, UsageError, withServices, type Command } from '../command.ts';

const DEFAULT_DAYS = 90;
/** The run kinds of the composition root that say how their old runs are cleaned up. */
const KINDS = cleanupKinds(RUN_KINDS);

function parseDays(value: string | undefined): number {
  if (value === undefined) return DEFAULT_DAYS;
  if (!/^\d+$/.test(value)) throw new UsageError(`--days must be a whole number of days (0 or more), got "${value}"`);
  return Number(value);
}

export const cleanupJobs: Command = {
  name: 'cleanup_jobs',
  summary: 'Delete finished jobs, project updates, inventory updates, ad hoc commands and management jobs older than some days',
  usage: `[--days N] [--dry-run] ${KINDS.map((k) => `[--${k.option}]`).join(' ')}`,
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
