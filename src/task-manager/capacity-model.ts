import type { Queryable } from '../db/database.ts';
import { DEFAULT_INSTANCE_GROUP } from '../resources/instance-groups/policy.ts';
import { ACTIVE_RUN_STATUSES, taskImpactSql } from '../resources/instances/capacity.ts';

/** Runs of kinds that execute playbooks (`onExecutionNodes`) go to hybrid and execution nodes; others (updates) to hybrid and control nodes. */
const nodeTypesFor = (onExecutionNodes: boolean): readonly string[] => (onExecutionNodes ? ['hybrid', 'execution'] : ['hybrid', 'control']);

interface InstanceLoad {
  hostname: string;
  nodeType: string;
  capacity: number;
  consumed: number;
  running: number;
}

interface GroupLoad {
  id: number;
  name: string;
  instances: InstanceLoad[];
  maxConcurrentJobs: number;
  maxForks: number;
  running: number;
  forks: number;
}

export interface Placement {
  hostname: string;
  groupId: number;
}

export interface PlacementRequest {
  /** Whether the run's kind runs on execution nodes (its `onExecutionNodes`). */
  onExecutionNodes: boolean;
  impact: number;
  forks: number;
  /** Preferred instance group ids in order; empty means the default group. */
  groupIds: number[];
  /** Only these instances may take it (a manual project's job: the nodes holding its directory). */
  hostnames?: ReadonlySet<string>;
}

/**
 * The cluster's free capacity as the task manager sees it during one pass: each placement is
 * charged to its instance and group so later jobs of the same pass see it.
 */
export class CapacityModel {
  private constructor(
    private readonly groups: Map<number, GroupLoad>,
    private readonly defaultGroupId: number | null,
  ) {}

  /** `graceSeconds`: a node silent this long offers nothing, even before a reaper marks it unavailable. */
  static async load(tx: Queryable, graceSeconds: number): Promise<CapacityModel> {
    const instances = await tx.query<{ id: number; hostname: string; node_type: string; capacity: number; consumed: number; running: number }>(
      `SELECT i.id, i.hostname, i.node_type,
              CASE WHEN i.enabled AND i.errors = '' AND i.node_state = 'ready' AND i.last_seen > now() - make_interval(secs => $1) THEN i.capacity ELSE 0 END AS capacity,
              coalesce(l.consumed, 0)::int AS consumed, coalesce(l.running, 0)::int AS running
       FROM instances i
       LEFT JOIN (SELECT r.execution_node, sum(${taskImpactSql('r')}) AS consumed, count(*) AS running FROM unified_jobs r
                  WHERE r.status = ANY($2) GROUP BY r.execution_node) l ON l.execution_node = i.hostname`,
      [graceSeconds, ACTIVE_RUN_STATUSES],
    );
    const byId = new Map(instances.map((i) => [i.id, { hostname: i.hostname, nodeType: i.node_type, capacity: i.capacity, consumed: i.consumed, running: i.running }]));
    const groupRows = await tx.query<{ id: number; name: string; max_concurrent_jobs: number; max_forks: number; running: number; forks: number }>(
      `SELECT g.id, g.name, g.max_concurrent_jobs, g.max_forks, coalesce(l.running, 0)::int AS running, coalesce(l.forks, 0)::int AS forks
       FROM instance_groups g
       LEFT JOIN (SELECT instance_group_id, count(*) AS running, sum(greatest(forks, 1)) AS forks FROM unified_jobs
                  WHERE status = ANY($1) AND instance_group_id IS NOT NULL GROUP BY instance_group_id) l ON l.instance_group_id = g.id
       WHERE NOT g.is_container_group`,
      [ACTIVE_RUN_STATUSES],
    );
    const members = await tx.query<{ instance_group_id: number; instance_id: number }>('SELECT instance_group_id, instance_id FROM instance_group_instances');
    const groups = new Map<number, GroupLoad>();
    for (const g of groupRows) {
      groups.set(g.id, { id: g.id, name: g.name, instances: [], maxConcurrentJobs: g.max_concurrent_jobs, maxForks: g.max_forks, running: g.running, forks: g.forks });
    }
    for (const m of members) {
      const instance = byId.get(m.instance_id);
      if (instance) groups.get(m.instance_group_id)?.instances.push(instance);
    }
    const defaultGroup = groupRows.find((g) => g.name === DEFAULT_INSTANCE_GROUP);
    return new CapacityModel(groups, defaultGroup?.id ?? null);
  }

  /**
   * AWX's placement: in preference order, the first group (within its job and fork limits) with an
   * eligible instance that has room for the impact, taking the instance with the most remaining
   * capacity; failing that, an idle instance of the group takes a job larger than its capacity.
   */
  place(request: PlacementRequest): Placement | null {
    const groupIds = request.groupIds.length ? request.groupIds : this.defaultGroupId !== null ? [this.defaultGroupId] : [];
    const types = nodeTypesFor(request.onExecutionNodes);
    for (const groupId of groupIds) {
      const group = this.groups.get(groupId);
      if (!group) continue;
      if (group.maxConcurrentJobs > 0 && group.running >= group.maxConcurrentJobs) continue;
      const forks = Math.max(request.forks, 1);
      if (group.maxForks > 0 && group.forks + forks > group.maxForks) continue;
      const eligible = group.instances.filter((i) => i.capacity > 0 && types.includes(i.nodeType) && (!request.hostnames || request.hostnames.has(i.hostname)));
      let best: InstanceLoad | null = null;
      for (const i of eligible) {
        if (i.capacity - i.consumed >= request.impact && (!best || i.capacity - i.consumed > best.capacity - best.consumed)) best = i;
      }
      best ??= eligible.filter((i) => i.running === 0).sort((a, b) => b.capacity - a.capacity)[0] ?? null;
      if (!best) continue;
      best.consumed += request.impact;
      best.running += 1;
      group.running += 1;
      group.forks += forks;
      return { hostname: best.hostname, groupId };
    }
    return null;
  }

  /** Whether any of the groups has an instance that could ever run runs of this kind (for a clearer explanation). */
  hasEligibleInstance(onExecutionNodes: boolean, groupIds: number[]): boolean {
    const ids = groupIds.length ? groupIds : this.defaultGroupId !== null ? [this.defaultGroupId] : [];
    const types = nodeTypesFor(onExecutionNodes);
    return ids.some((id) => this.groups.get(id)?.instances.some((i) => i.capacity > 0 && types.includes(i.nodeType)));
  }

  groupNames(groupIds: number[]): string {
    const ids = groupIds.length ? groupIds : this.defaultGroupId !== null ? [this.defaultGroupId] : [];
    return ids.map((id) => this.groups.get(id)?.name).filter(Boolean).join(', ') || DEFAULT_INSTANCE_GROUP;
  }
}
