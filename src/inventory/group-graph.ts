import type { Queryable } from '../db/database.ts';

/**
 * Groups nest through group_children (parent_id -> child_id) and never form a cycle. These are the
 * queries over that graph; each is one statement, however deep the nesting.
 */

/** Whether making `childId` a child of `parentId` would close a cycle: the parent is the child or below it. */
export async function wouldCloseCycle(tx: Queryable, parentId: number, childId: number): Promise<boolean> {
  const rows = await tx.query(
    `WITH RECURSIVE below(id) AS (
       SELECT $2::integer
       UNION SELECT gc.child_id FROM group_children gc JOIN below ON gc.parent_id = below.id)
     SELECT 1 FROM below WHERE id = $1 LIMIT 1`,
    [parentId, childId],
  );
  return rows.length > 0;
}

/**
 * Before a group is deleted: its hosts and child groups become members of each of its parents
 * (a group without parents simply lets them go, as AWX).
 */
export async function moveMembersToParents(tx: Queryable, groupId: number): Promise<void> {
  await tx.query(
    `INSERT INTO group_hosts (group_id, host_id)
     SELECT up.parent_id, gh.host_id FROM group_children up JOIN group_hosts gh ON gh.group_id = up.child_id
     WHERE up.child_id = $1
     ON CONFLICT DO NOTHING`,
    [groupId],
  );
  await tx.query(
    `INSERT INTO group_children (parent_id, child_id)
     SELECT up.parent_id, down.child_id FROM group_children up JOIN group_children down ON down.parent_id = up.child_id
     WHERE up.child_id = $1 AND up.parent_id <> down.child_id
     ON CONFLICT DO NOTHING`,
    [groupId],
  );
}

/**
 * Relation sources (FROM clauses) over the graph. Each computes one parent's closure in a LATERAL
 * subquery, so a list of one group or host reads only its own part of the graph.
 */

/** host -> every group it belongs to, directly or through nesting (pairs host_all_group.host_id, host_all_group.group_id). */
export const HOST_ALL_GROUPS = `hosts AS all_groups_host CROSS JOIN LATERAL (
  WITH RECURSIVE up(group_id) AS (
    SELECT group_id FROM group_hosts WHERE host_id = all_groups_host.id
    UNION SELECT gc.parent_id FROM group_children gc JOIN up ON gc.child_id = up.group_id)
  SELECT group_id FROM up) AS host_all_group`;

/** group -> every host in it or in a group below it. */
export const GROUP_ALL_HOSTS = `groups AS all_hosts_group CROSS JOIN LATERAL (
  WITH RECURSIVE below(id) AS (
    SELECT all_hosts_group.id
    UNION SELECT gc.child_id FROM group_children gc JOIN below ON gc.parent_id = below.id)
  SELECT DISTINCT gh.host_id FROM below JOIN group_hosts gh ON gh.group_id = below.id) AS group_all_host`;

/** group -> groups of its inventory it could take as a child: neither itself, nor above it, nor already below it (as AWX). */
export const GROUP_POTENTIAL_CHILDREN = `groups AS potential_parent CROSS JOIN LATERAL (
  SELECT candidate.id FROM groups candidate
  WHERE candidate.inventory_id = potential_parent.inventory_id
    AND candidate.id NOT IN (
      WITH RECURSIVE up(id) AS (
        SELECT potential_parent.id
        UNION SELECT gc.parent_id FROM group_children gc JOIN up ON gc.child_id = up.id)
      SELECT id FROM up)
    AND candidate.id NOT IN (
      WITH RECURSIVE below(id) AS (
        SELECT potential_parent.id
        UNION SELECT gc.child_id FROM group_children gc JOIN below ON gc.parent_id = below.id)
      SELECT id FROM below)) AS potential_child`;

/** inventory -> its groups that no group holds. */
export const INVENTORY_ROOT_GROUPS = `(SELECT g.inventory_id, g.id FROM groups g
  WHERE NOT EXISTS (SELECT 1 FROM group_children gc WHERE gc.child_id = g.id)) AS root_group`;

/** inventory -> the hosts it holds: its own, or for a smart inventory those its filter selects. */
export const INVENTORY_HOSTS = `(SELECT inventory_id, id AS host_id FROM hosts
  UNION ALL SELECT inventory_id, host_id FROM smart_inventory_memberships) AS inventory_host`;
