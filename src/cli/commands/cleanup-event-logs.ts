import { EVENT_LOG_RETENTION_DAYS, pruneEventLogs } from '../../eda/retention.ts';
import { parseOptions, withServices, type Command } from '../command.ts';
import { wholeNumber } from './cleanup-fact-snapshots.ts';

export const cleanupEventLogs: Command = {
  name: 'cleanup_event_logs',
  summary: `Delete evaluated event logs older than some days (${EVENT_LOG_RETENTION_DAYS})`,
  usage: '[--days N]',
  async run({ env, args, io }) {
    const { values } = parseOptions(args, { days: { type: 'string' } });
    const days = wholeNumber(values.days as string | undefined, 'days', EVENT_LOG_RETENTION_DAYS, 0);
    const deleted = await withServices(env, ({ db }) => pruneEventLogs(db, days));
    io.out(`Deleted ${deleted} event log${deleted === 1 ? '' : 's'}.`);
    return 0;
  },
};
