import { isSuperuser, hasObjectRoleOnRow, visibleThroughRole, type AccessPolicy } from '../../api/access.ts';
import { boolean, FieldProblem, integer, json, ref, text, type Field } from '../../api/fields.ts';
import type { Relation } from '../../api/relations.ts';
import { defineResource } from '../../api/resource.ts';
import { ValidationError } from '../../api/errors.ts';
import { objectRoles } from '../../rbac/relations.ts';
import { applyInstanceGroupPolicies, DEFAULT_INSTANCE_GROUP } from './policy.ts';
import { groupLoads, type GroupLoad } from './group-capacity.ts';
import { instancesOfGroup } from './membership.ts';
import type { InstanceGroupRow } from '../../db/tables.ts';

/** A list of hostnames. */
function hostnameList(): Field {
  const field = json({ default: [], helpText: 'Hostnames of instances this group always holds.' });
  return {
    ...field,
    // Repeats are dropped, not refused.
    valueSchema: { type: 'array', items: { type: 'string', minLength: 1 } },
    parse: (value) => {
      if (!Array.isArray(value) || value.some((h) => typeof h !== 'string' || h === '')) throw new FieldProblem('Expected a list of hostnames.');
      return [...new Set(value as string[])];
    },
  };
}

/** As AWX: readers of a group see it; superusers create and delete groups; its admins change it. The default group stays. */
const instanceGroupAccess: AccessPolicy = {
  visible: (ctx, alias, params) => visibleThroughRole(ctx, alias, params, 'instance_group'),
  canCreate: isSuperuser,
  canChange: (ctx, tx, row, _values, page) => hasObjectRoleOnRow(ctx, tx, 'instance_group', 'admin_role', row, page),
  canDelete: (ctx, _tx, row) => isSuperuser(ctx) && row.name !== DEFAULT_INSTANCE_GROUP,
  canAttach: isSuperuser,
};

/** Runs executing (or executed) on the group's instances. */
const jobsOfGroup: Relation = {
  target: 'unified_job',
  from: `unified_jobs AS ran JOIN instances AS ran_on ON ran_on.hostname = ran.execution_node
    JOIN instance_group_instances AS ran_in ON ran_in.instance_id = ran_on.id`,
  parentColumn: 'ran_in.instance_group_id',
  targetColumn: 'ran.id',
  attachable: false,
};

export const instanceGroups = defineResource<InstanceGroupRow>({
  name: 'instance_group',
  table: 'instance_groups',
  label: 'Instance Group List',
  description: 'Groups of instances that runs are sent to.',
  fields: {
    name: text({ required: true, maxLength: 250, allowBlank: false }),
    is_container_group: boolean({ writeOnce: true, helpText: 'Container groups run jobs in a Kubernetes cluster (not supported here).' }),
    credential: ref('credential'),
    max_concurrent_jobs: integer({ default: 0, min: 0, helpText: 'Maximum number of jobs to run concurrently on this group. Zero means no limit.' }),
    max_forks: integer({ default: 0, min: 0, helpText: 'Maximum number of forks to allow across all jobs running concurrently on this group. Zero means no limit.' }),
    policy_instance_percentage: integer({ default: 0, min: 0, max: 100, helpText: 'Percentage of instances that will be automatically assigned to this group.' }),
    policy_instance_minimum: integer({ default: 0, min: 0, helpText: 'Minimum number of instances that will be automatically assigned to this group.' }),
    policy_instance_list: hostnameList(),
    pod_spec_override: text(),
  },
  namedUrl: ['name'],
  search: ['name'],
  ordering: 'name',
  unique: [['name']],
  summaryColumns: ['id', 'name', 'is_container_group'],
  related: { instances: instancesOfGroup, jobs: jobsOfGroup, object_roles: objectRoles('instance_group') },
  roles: {
    admin_role: { name: 'Admin', description: 'Can manage all aspects of the instance group' },
    use_role: { name: 'Use', description: 'Can use the instance group in a job template', parents: ['admin_role'] },
    read_role: { name: 'Read', description: 'May view settings for the instance group', parents: ['use_role'] },
  },
  access: instanceGroupAccess,
  hooks: {
    beforeWrite: (_tx, _ctx, values, existing) => {
      if (existing?.name === DEFAULT_INSTANCE_GROUP && 'name' in values && values.name !== DEFAULT_INSTANCE_GROUP) {
        throw ValidationError.field('name', `The ${DEFAULT_INSTANCE_GROUP} instance group cannot be renamed.`);
      }
      if (values.is_container_group === true) throw ValidationError.field('is_container_group', 'Container groups are not supported: jobs run on the instances.');
    },
    afterWrite: (tx) => applyInstanceGroupPolicies(tx),
  },
  prepare: (db, rows) => groupLoads(db, rows.map((r) => r.id)),
  decorate: (row, out, prepared) => {
    const load = (prepared as Map<number, GroupLoad> | undefined)?.get(row.id);
    Object.assign(out, {
      capacity: load?.capacity ?? 0,
      consumed_capacity: load?.consumed_capacity ?? 0,
      percent_capacity_remaining: load?.percent_capacity_remaining ?? 0,
      jobs_running: load?.jobs_running ?? 0,
      jobs_total: load?.jobs_total ?? 0,
      instances: load?.instances ?? 0,
    });
  },
});
