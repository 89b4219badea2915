import { parseOptions, withServices, type Command } from '../command.ts';

interface InstanceRow {
  hostname: string;
  node_type: string;
  capacity: number;
  version: string;
  enabled: boolean;
  last_seen: Date | string | null;
}

const timestamp = (value: Date | string) => new Date(value).toISOString().replace('T', ' ').replace(/\.\d+Z$/, '');

export const listInstances: Command = {
  name: 'list_instances',
  summary: 'List the cluster nodes with their type, capacity and last heartbeat',
  usage: '',
  async run({ env, args, io }) {
    parseOptions(args, {});
    const rows = await withServices(env, ({ db }) =>
      db.query<InstanceRow>('SELECT hostname, node_type, capacity, version, enabled, last_seen FROM instances ORDER BY hostname'),
    );
    if (!rows.length) io.err('No instances are registered.');
    for (const row of rows) {
      const parts = [row.hostname, `capacity=${row.capacity}`, `node_type=${row.node_type}`, `version=${row.version || '?'}`];
      if (row.last_seen) parts.push(`heartbeat="${timestamp(row.last_seen)}"`);
      if (!row.enabled) parts.push('[DISABLED]');
      io.out(parts.join(' '));
    }
    return 0;
  },
};
