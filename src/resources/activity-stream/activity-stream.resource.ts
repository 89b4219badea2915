import { seesEverything, type AccessPolicy } from '../../api/access.ts';
import { choice, datetime, integer, json, ref, text } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import type { ActivityStreamRow } from '../../db/tables.ts';
import { addActivitySummaries, loadActivityObjects, type ActivityObjects } from './activity-objects.ts';

const never = () => false;

const activityAccess: AccessPolicy = {
  // Until object-level roles decide it, others see only what they did themselves.
  visible: (ctx, alias, params) => (seesEverything(ctx) ? null : `${alias}.actor_id = ${params.add(ctx.user?.id ?? 0)}`),
  canCreate: never,
  canChange: never,
  canDelete: never,
  canAttach: never,
};

export const activityStream = defineResource<ActivityStreamRow>({
  name: 'activity_stream',
  plural: 'activity_stream',
  table: 'activity_stream',
  label: 'Activity Stream List',
  description: 'A record of every change: what changed, who changed it and when.',
  untracked: true,
  fields: {
    timestamp: datetime({ readOnly: true }),
    operation: choice(['create', 'update', 'delete', 'associate', 'disassociate'], { readOnly: true, helpText: 'The action taken with respect to the given object(s).' }),
    changes: json({ readOnly: true, filterable: true, helpText: 'A summary of the new and changed values when an object is created, updated, or deleted' }),
    object1: text({ readOnly: true, helpText: 'For create, update, and delete events this is the object type that was affected.' }),
    object1_id: integer({ readOnly: true, label: 'Object1 id' }),
    object2: text({ readOnly: true, helpText: 'The second object type involved in an association or disassociation.' }),
    object2_id: integer({ readOnly: true, nullable: true, label: 'Object2 id' }),
    object_association: text({ readOnly: true, helpText: 'When present, shows the field name of the role or relationship that changed.' }),
    action_node: text({ readOnly: true, helpText: 'The cluster node the activity took place on.' }),
    actor: ref('user', { readOnly: true }),
  },
  ordering: '-timestamp',
  search: ['object1', 'object2', 'operation'],
  access: activityAccess,
  operations: { create: false, update: false, delete: false },
  prepare: loadActivityObjects,
  decorate: (row, out, prepared) => addActivitySummaries(row, out, prepared as ActivityObjects | undefined),
});
