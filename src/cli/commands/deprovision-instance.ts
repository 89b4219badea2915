import { recordActivity } from '../../activity/record.ts';
import { systemContextIn } from '../../api/context.ts';
import { applyInstanceGroupPolicies } from '../../resources/instance-groups/policy.ts';
import { CommandError, parseOptions, requireOption, withServices, type Command } from '../command.ts';

export const deprovisionInstance: Command = {
  name: 'deprovision_instance',
  summary: 'Remove a cluster node and its instance group memberships',
  usage: '--hostname HOSTNAME',
  async run({ env, args, io }) {
    const { values } = parseOptions(args, { hostname: { type: 'string' } });
    const hostname = requireOption(values.hostname, 'hostname');
    await withServices(env, (services) =>
      services.db.transaction(async (tx) => {
        const [row] = await tx.query<{ id: number; node_type: string }>('DELETE FROM instances WHERE hostname = $1 RETURNING id, node_type', [hostname]);
        if (!row) throw new CommandError(`Instance ${hostname} is not registered (drover manage list_instances lists them)`);
        await recordActivity(tx, systemContextIn(services), { operation: 'delete', object1: 'instance', object1Id: row.id, changes: { hostname, node_type: row.node_type } });
        await applyInstanceGroupPolicies(tx);
      }),
    );
    io.out(`Successfully deprovisioned ${hostname}`);
    return 0;
  },
};
