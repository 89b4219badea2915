import { recordActivity } from '../../activity/record.ts';
import { systemContextIn } from '../../api/context.ts';
import { applyInstanceGroupPolicies } from '../../resources/instance-groups/policy.ts';
import { NODE_TYPES } from '../../resources/instances/instance.resource.ts';
import { VERSION } from '../../version.ts';
import { parseOptions, requireOption, UsageError, withServices, type Command } from '../command.ts';

export const provisionInstance: Command = {
  name: 'provision_instance',
  summary: 'Register a cluster node (it joins instance groups by their policies)',
  usage: '--hostname HOSTNAME [--node_type hybrid|control|execution]',
  async run({ env, args, io }) {
    const { values } = parseOptions(args, { hostname: { type: 'string' }, node_type: { type: 'string' } });
    const hostname = requireOption(values.hostname, 'hostname').trim();
    if (!hostname || hostname.length > 250) throw new UsageError('--hostname must be 1 to 250 characters');
    const nodeType = values.node_type ?? 'hybrid';
    if (!(NODE_TYPES as readonly string[]).includes(nodeType)) throw new UsageError(`--node_type must be one of ${NODE_TYPES.join(', ')}`);
    const outcome = await withServices(env, (services) =>
      services.db.transaction(async (tx) => {
        const [existing] = await tx.query<{ id: number; node_type: string }>('SELECT id, node_type FROM instances WHERE hostname = $1 FOR UPDATE', [hostname]);
        if (existing?.node_type === nodeType) return 'unchanged';
        if (existing) {
          await tx.query('UPDATE instances SET node_type = $2, modified = now() WHERE id = $1', [existing.id, nodeType]);
          await recordActivity(tx, systemContextIn(services), { operation: 'update', object1: 'instance', object1Id: existing.id, changes: { node_type: [existing.node_type, nodeType] } });
        } else {
          const [row] = await tx.query<{ id: number }>(
            `INSERT INTO instances (hostname, node_type, uuid, version) VALUES ($1, $2, gen_random_uuid()::text, $3) RETURNING id`,
            [hostname, nodeType, VERSION],
          );
          await recordActivity(tx, systemContextIn(services), { operation: 'create', object1: 'instance', object1Id: row.id, changes: { hostname, node_type: nodeType } });
        }
        await applyInstanceGroupPolicies(tx);
        return existing ? 'updated' : 'created';
      }),
    );
    io.out(outcome === 'unchanged' ? `Instance already registered ${hostname}` : `Successfully registered instance ${hostname} (node_type ${nodeType})`);
    return 0;
  },
};
