import { joinTable, type Relation } from '../../api/relations.ts';
import type { Queryable } from '../../db/database.ts';
import { applyInstanceGroupPolicies } from './policy.ts';

/** Adds the instance's hostname to the group's policy_instance_list, or takes it out. */
async function setListed(tx: Queryable, groupId: number, instanceId: number, listed: boolean): Promise<boolean> {
  const [row] = await tx.query<{ changed: boolean }>(
    `WITH node AS (SELECT hostname FROM instances WHERE id = $2),
     updated AS (
       UPDATE instance_groups g SET policy_instance_list = CASE WHEN $3
           THEN g.policy_instance_list || to_jsonb(node.hostname)
           ELSE g.policy_instance_list - node.hostname END, modified = now()
       FROM node WHERE g.id = $1 AND (g.policy_instance_list ? node.hostname) <> $3
       RETURNING 1)
     SELECT EXISTS (SELECT 1 FROM updated) AS changed`,
    [groupId, instanceId, listed],
  );
  return row.changed;
}

async function isMember(tx: Queryable, groupId: number, instanceId: number): Promise<boolean> {
  return (await tx.query('SELECT 1 FROM instance_group_instances WHERE instance_group_id = $1 AND instance_id = $2', [groupId, instanceId])).length > 0;
}

/**
 * /instance_groups/{id}/instances/: as AWX, attaching an instance names it in the group's
 * policy_instance_list (so the membership policy keeps it) and detaching takes it out of the list;
 * the policy then decides the membership.
 */
export const instancesOfGroup: Relation = {
  ...joinTable('instance', 'instance_group_instances', 'instance_group_id', 'instance_id'),
  async attach(tx, groupId, instanceId) {
    const before = await isMember(tx, groupId, instanceId);
    const listed = await setListed(tx, groupId, instanceId, true);
    await applyInstanceGroupPolicies(tx);
    return listed || !before;
  },
  async detach(tx, groupId, instanceId) {
    const before = await isMember(tx, groupId, instanceId);
    const unlisted = await setListed(tx, groupId, instanceId, false);
    await applyInstanceGroupPolicies(tx);
    return unlisted || (before && !(await isMember(tx, groupId, instanceId)));
  },
};
