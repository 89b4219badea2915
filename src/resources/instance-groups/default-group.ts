import type { RequestContext } from '../../api/context.ts';
import { createObject } from '../../api/crud.ts';
import type { Queryable } from '../../db/database.ts';
import { instanceGroups } from './instance-group.resource.ts';
import { DEFAULT_INSTANCE_GROUP } from './policy.ts';

/** Creates the "default" instance group, which takes every policy-managed instance, unless it exists. */
export async function ensureDefaultInstanceGroup(tx: Queryable, system: RequestContext): Promise<void> {
  // The lock the membership policy takes too: nodes starting together create the group once.
  await tx.query('SELECT pg_advisory_xact_lock(7341104)');
  const [present] = await tx.query('SELECT 1 FROM instance_groups WHERE name = $1', [DEFAULT_INSTANCE_GROUP]);
  if (present) return;
  await createObject(tx, system, instanceGroups, {
    name: DEFAULT_INSTANCE_GROUP,
    is_container_group: false,
    credential: null,
    max_concurrent_jobs: 0,
    max_forks: 0,
    policy_instance_percentage: 100,
    policy_instance_minimum: 0,
    policy_instance_list: [],
    pod_spec_override: '',
  });
}
