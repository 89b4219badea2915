import type { Queryable } from '../../db/database.ts';

export const DEFAULT_INSTANCE_GROUP = 'default';

interface GroupPolicy {
  id: number;
  policy_instance_percentage: number;
  policy_instance_minimum: number;
  policy_instance_list: string[];
}

interface Node {
  id: number;
  hostname: string;
  node_type: string;
  managed_by_policy: boolean;
}

/**
 * AWX's cluster membership policy, recomputed for every group that is not a container group: a
 * group holds the instances its policy_instance_list names, then policy-managed instances (not
 * control nodes, by hostname) until it has policy_instance_minimum of them and
 * policy_instance_percentage of the policy-managed ones. Attaching an instance by hand adds it to
 * the list, so the policy keeps it.
 */
export async function applyInstanceGroupPolicies(tx: Queryable): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(7341104)');
  const groups = await tx.query<GroupPolicy>(
    `SELECT id, policy_instance_percentage, policy_instance_minimum, policy_instance_list FROM instance_groups
     WHERE NOT is_container_group ORDER BY id`,
  );
  const nodes = await tx.query<Node>('SELECT id, hostname, node_type, managed_by_policy FROM instances ORDER BY hostname');
  const candidates = nodes.filter((n) => n.managed_by_policy && n.node_type !== 'control');
  for (const group of groups) {
    const listed = new Set(Array.isArray(group.policy_instance_list) ? group.policy_instance_list : []);
    const members = new Set(nodes.filter((n) => listed.has(n.hostname)).map((n) => n.id));
    const wanted = Math.max(group.policy_instance_minimum, Math.ceil((group.policy_instance_percentage * candidates.length) / 100));
    for (const node of candidates) {
      if (members.size >= wanted) break;
      members.add(node.id);
    }
    await tx.query('DELETE FROM instance_group_instances WHERE instance_group_id = $1 AND NOT (instance_id = ANY($2::integer[]))', [group.id, [...members]]);
    if (members.size) {
      await tx.query(
        `INSERT INTO instance_group_instances (instance_group_id, instance_id) SELECT $1, unnest($2::integer[]) ON CONFLICT DO NOTHING`,
        [group.id, [...members]],
      );
    }
  }
}
