import { isSuperuser, objectsWithRole, seesEverything, type AccessPolicy } from '../../api/access.ts';
import { boolean, choice, datetime, float, integer, text, type Field } from '../../api/fields.ts';
import { joinTable, type Relation } from '../../api/relations.ts';
import { defineResource, type Values } from '../../api/resource.ts';
import type { Queryable } from '../../db/database.ts';
import { applyInstanceGroupPolicies } from '../instance-groups/policy.ts';
import { instanceActions } from './instance-actions.ts';
import { adjustedCapacity, loadByHostname, percentRemaining, type NodeLoad } from './capacity.ts';
import type { InstanceRow } from '../../db/tables.ts';

export const NODE_TYPES = ['hybrid', 'control', 'execution'] as const;
export const NODE_STATES = ['provisioning', 'provision-fail', 'installed', 'ready', 'unavailable', 'deprovisioning', 'deprovision-fail'] as const;

const asNumber = (field: Field): Field => ({ ...field, serialize: (v: unknown) => (v === null || v === undefined ? null : Number(v)) });

/**
 * Superusers and system auditors read every node of the cluster, others the nodes of the instance
 * groups they may see (AWX's InstanceAccess); only superusers change them.
 */
const instanceAccess: AccessPolicy<InstanceRow> = {
  visible: (ctx, alias, params) =>
    seesEverything(ctx)
      ? null
      : `${alias}.id IN (SELECT instance_id FROM instance_group_instances WHERE instance_group_id IN (${objectsWithRole('instance_group', ['read_role'], params.add(ctx.user?.id ?? 0))}))`,
  canCreate: () => false,
  canChange: isSuperuser,
  canDelete: () => false,
  canAttach: isSuperuser,
  actions: instanceActions,
  // As AWX, an instance shows only whether it may be edited.
  capabilities: { delete: false },
};

/** Runs whose execution_node is the instance (the parent). */
const jobsOnInstance: Relation = {
  target: 'unified_job',
  from: 'unified_jobs AS ran JOIN instances AS ran_on ON ran_on.hostname = ran.execution_node',
  parentColumn: 'ran_on.id',
  targetColumn: 'ran.id',
  attachable: false,
};

const instanceGroupsOfInstance: Relation = { ...joinTable('instance_group', 'instance_group_instances', 'instance_id', 'instance_group_id'), attachable: false };

/** A change of enabled or capacity_adjustment moves capacity with it. */
function recomputeCapacity(_tx: Queryable, _ctx: unknown, values: Values, existing: InstanceRow | null): void {
  if (!existing) return;
  const enabled = (values.enabled ?? existing.enabled) as boolean;
  const adjustment = Number(values.capacity_adjustment ?? existing.capacity_adjustment);
  values.capacity = adjustedCapacity(existing.cpu_capacity, existing.mem_capacity, adjustment, enabled, existing.errors);
}

export const instances = defineResource<InstanceRow>({
  name: 'instance',
  table: 'instances',
  label: 'Instance List',
  description: 'The nodes of the cluster, their capacity and the runs on them.',
  operations: { create: false, delete: false },
  fields: {
    hostname: text({ readOnly: true }),
    uuid: text({ readOnly: true }),
    node_type: choice(NODE_TYPES, { readOnly: true }),
    node_state: choice(NODE_STATES, { readOnly: true }),
    version: text({ readOnly: true }),
    capacity: integer({ readOnly: true }),
    capacity_adjustment: asNumber(float({ min: 0, max: 1, default: 0, helpText: '0 offers the smaller of CPU and memory capacity, 1 the larger.' })),
    cpu: integer({ readOnly: true }),
    memory: asNumber(integer({ readOnly: true })),
    cpu_capacity: integer({ readOnly: true }),
    mem_capacity: integer({ readOnly: true }),
    enabled: boolean({ default: true }),
    managed_by_policy: boolean({ default: true, helpText: 'Instance groups take this instance by their policy.' }),
    errors: text({ readOnly: true, helpText: 'Why the instance cannot run jobs, if it cannot.' }),
    isolates_runs: boolean({ readOnly: true, helpText: 'The instance runs every job, ad hoc command and update inside its sandbox (bubblewrap).' }),
    last_seen: datetime({ readOnly: true }),
    last_health_check: datetime({ readOnly: true }),
    health_check_started: datetime({ readOnly: true }),
    ip_address: text({ readOnly: true }),
    listener_port: integer({ readOnly: true, nullable: true }),
  },
  namedUrl: ['hostname'],
  search: ['hostname'],
  ordering: 'hostname',
  summaryColumns: ['id', 'hostname', 'node_type'],
  related: { instance_groups: instanceGroupsOfInstance, jobs: jobsOnInstance },
  access: instanceAccess,
  hooks: {
    beforeWrite: recomputeCapacity,
    afterWrite: async (tx, _ctx, row, existing) => {
      if (existing && (row.managed_by_policy !== existing.managed_by_policy || row.enabled !== existing.enabled)) await applyInstanceGroupPolicies(tx);
    },
  },
  prepare: (db, rows) => loadByHostname(db, rows.map((r) => r.hostname)),
  decorate: (row, out, prepared) => {
    const load = (prepared as Map<string, NodeLoad> | undefined)?.get(row.hostname) ?? { consumed_capacity: 0, jobs_running: 0, jobs_total: 0 };
    (out.related as Record<string, string>).health_check = `/api/v2/instances/${row.id}/health_check/`;
    Object.assign(out, load, {
      percent_capacity_remaining: percentRemaining(row.capacity, load.consumed_capacity),
      heartbeat: out.last_seen,
      health_check_pending: row.health_check_started !== null && (row.last_health_check === null || row.health_check_started > row.last_health_check),
      // AWX shows the protocol of the node's canonical receptor address; nodes here talk through the database.
      protocol: '',
      managed: false,
      peers: [],
      reverse_peers: [],
      peers_from_control_nodes: false,
    });
  },
});
