import {
  cleanupHostMetrics,
  DEFAULT_HARD_THRESHOLD,
  DEFAULT_SOFT_THRESHOLD,
  summarizeHostMetricsMonthly,
} from '../../resources/host-metrics/host-metric-tasks.ts';
import { parseOptions, UsageError, withServices, type Command } from '../command.ts';

function parseMonths(option: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 1200) throw new UsageError(`--${option} must be a whole number of months from 1 to 1200, got "${value}"`);
  return Number(value);
}

/** AWX's cleanup_host_metrics command, with its thresholds (AWX reads them from its settings) as options. */
export const cleanupHostMetricsCommand: Command = {
  name: 'cleanup_host_metrics',
  summary: 'Soft-delete host metrics not automated for some months, erase those deleted long ago, and refresh the monthly summary',
  usage: `[--soft-threshold MONTHS (${DEFAULT_SOFT_THRESHOLD})] [--hard-threshold MONTHS (${DEFAULT_HARD_THRESHOLD})]`,
  async run({ env, args, io }) {
    const { values } = parseOptions(args, { 'soft-threshold': { type: 'string' }, 'hard-threshold': { type: 'string' } });
    const soft = parseMonths('soft-threshold', values['soft-threshold'] as string | undefined, DEFAULT_SOFT_THRESHOLD);
    const hard = parseMonths('hard-threshold', values['hard-threshold'] as string | undefined, DEFAULT_HARD_THRESHOLD);
    const outcome = await withServices(env, ({ db }) =>
      db.transaction(async (tx) => {
        const done = await cleanupHostMetrics(tx, { soft, hard });
        await summarizeHostMetricsMonthly(tx, hard);
        return done;
      }),
    );
    io.out(`Soft-deleted ${outcome.softDeleted} host metrics, hard-deleted ${outcome.hardDeleted}.`);
    return 0;
  },
};

/** AWX's host_metric_summary_monthly command. */
export const hostMetricSummaryMonthlyCommand: Command = {
  name: 'host_metric_summary_monthly',
  summary: 'Compute the monthly summary of host metrics',
  usage: '',
  async run({ env, args, io }) {
    parseOptions(args, {});
    await withServices(env, ({ db }) => summarizeHostMetricsMonthly(db));
    io.out('Computed the host metric summary.');
    return 0;
  },
};
