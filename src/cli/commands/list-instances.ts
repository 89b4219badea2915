import { parseOptions, withServices, type Command } from '../command.ts';

interface InstanceRow {
  hostname: string;
  node_type: string;
  capacity: number;
  version: string;
  enabled: boolean;
  last_seen: Date | string | null;
  errors: string;
  groups: string[];
}

const timestamp = (value: Date | string) => new Date(value).toISOString().replace('T', ' ').replace(/\.\d+Z$/, '');

export const listInstances: Command = {
  name: 'list_instances',
  summary: 'List the cluster nodes with their type, capacity, last heartbeat and problems',
  usage: '',
  async run({ env, args, io }) {
    parseOptions(args, {});
    const rows = await withServices(env, ({ db }) =>
      db.query<InstanceRow>(`SELECT i.hostname, i.node_type, i.capacity, i.version, i.enabled, i.last_seen, i.errors,
         coalesce(array_agg(g.name ORDER BY g.name) FILTER (WHERE g.id IS NOT NULL), '{}') AS groups
       FROM instances i LEFT JOIN instance_group_instances m ON m.instance_id = i.id LEFT JOIN instance_groups g ON g.id = m.instance_group_id
       GROUP BY i.id ORDER BY i.hostname`),
    );
    if (!rows.length) io.err('No instances are registered.');
    for (const row of rows) {
      const parts = [row.hostname, `capacity=${row.capacity}`, `node_type=${row.node_type}`, `version=${row.version || '?'}`];
      if (row.last_seen) parts.push(`heartbeat="${timestamp(row.last_seen)}"`);
      if (!row.groups.length) parts.push('[UNGROUPED]');
      if (!row.enabled) parts.push('[DISABLED]');
      if (row.errors) parts.push(`errors="${row.errors}"`);
      io.out(parts.join(' '));
    }
    return 0;
  },
};
