import { pruneFactSnapshots, SNAPSHOT_RETENTION_DAYS, SNAPSHOTS_KEPT_PER_HOST } from '../../drift/retention.ts';
import { parseOptions, UsageError, withServices, type Command } from '../command.ts';

/** A --name option's whole number, at least `min`, or `fallback` when it is not given. */
export function wholeNumber(value: string | undefined, name: string, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min) throw new UsageError(`--${name} must be a whole number (${min} or more), got "${value}"`);
  return Number(value);
}

export const cleanupFactSnapshots: Command = {
  name: 'cleanup_fact_snapshots',
  summary: `Delete host fact snapshots older than some days (${SNAPSHOT_RETENTION_DAYS}), keeping each host's newest (${SNAPSHOTS_KEPT_PER_HOST})`,
  usage: '[--days N] [--keep N]',
  async run({ env, args, io }) {
    const { values } = parseOptions(args, { days: { type: 'string' }, keep: { type: 'string' } });
    const days = wholeNumber(values.days as string | undefined, 'days', SNAPSHOT_RETENTION_DAYS, 0);
    const keep = wholeNumber(values.keep as string | undefined, 'keep', SNAPSHOTS_KEPT_PER_HOST, 1);
    const deleted = await withServices(env, ({ db }) => pruneFactSnapshots(db, days, keep));
    io.out(`Deleted ${deleted} fact snapshot${deleted === 1 ? '' : 's'}.`);
    return 0;
  },
};
