import { seesEverything, type AccessPolicy } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { associate } from '../../api/crud.ts';
import { ApiError, forbidden } from '../../api/errors.ts';
import { datetime, ref, text, type Field } from '../../api/fields.ts';
import { isVisible } from '../../api/list.ts';
import { defineResource, type Resource, type Values } from '../../api/resource.ts';
import { ident } from '../../api/sql.ts';
import type { Queryable, ResourceRow } from '../../db/database.ts';
import { roleId } from '../../rbac/graph.ts';
import { PERMISSION_MODELS } from '../../rbac/role-definitions.ts';

type Actor = 'user' | 'team';

interface AssignmentRow extends ResourceRow {
  role_id: number;
  role_definition_id: number;
  object_id: string;
  object_pk: number;
  resource: string;
  content_type: string;
  user_id?: number;
  team_id?: number;
}

/**
 * DAB's visible_items: the assignments on objects the caller sees (by the access policy of the
 * object's resource); superusers and system auditors see them all.
 */
const assignmentAccess: AccessPolicy<AssignmentRow> = {
  visible: (ctx, alias, params) => {
    if (seesEverything(ctx)) return null;
    const visibleObjects = PERMISSION_MODELS.map(({ resource: name }) => {
      const resource = ctx.service.resources.get(name);
      const inner = `assigned_${name}`;
      const condition = resource.access.visible(ctx, inner, params);
      return `(${alias}.resource = '${name}' AND ${alias}.object_pk IN (SELECT ${inner}.id FROM ${ident(resource.table)} ${inner}${condition ? ` WHERE ${condition}` : ''}))`;
    });
    return `(${visibleObjects.join(' OR ')})`;
  },
  prepare: async (ctx, db) => {
    for (const { resource } of PERMISSION_MODELS) await ctx.service.resources.get(resource).access.prepare?.(ctx, db);
  },
  // What one may assign depends on the object and the role: `create` checks it as /roles/{id}/users/ does.
  canCreate: (ctx) => ctx.user !== null && ctx.user !== undefined,
  canChange: () => false,
  canDelete: () => true,
  canAttach: () => false,
};

const objectIdError = (value: unknown) => new ApiError(400, { object_id: [`Invalid pk "${String(value)}" - object does not exist.`] });

/** The Drover role a definition gives on one object; the object must be one the caller sees. */
async function roleOnObject(tx: Queryable, ctx: RequestContext, definitionId: number, objectValue: unknown): Promise<number> {
  const [definition] = await tx.query<{ resource: string; role_field: string }>('SELECT resource, role_field FROM role_definitions WHERE id = $1', [definitionId]);
  if (!definition) throw new ApiError(400, { role_definition: [`Invalid pk "${definitionId}" - object does not exist.`] });
  if (objectValue === undefined || objectValue === null || objectValue === '') throw new ApiError(400, { object_id: ['Object must be specified for this role assignment'] });
  const objectId = Number(objectValue);
  if (!Number.isSafeInteger(objectId) || objectId <= 0 || objectId > 2_147_483_647) throw objectIdError(objectValue);
  const resource = ctx.service.resources.get(definition.resource);
  const [exists] = await tx.query(`SELECT 1 FROM ${ident(resource.table)} WHERE id = $1`, [objectId]);
  if (!exists || !(await isVisible(tx, ctx, resource, objectId))) throw objectIdError(objectValue);
  const id = await roleId(tx, definition.resource, objectId, definition.role_field);
  if (id === null) throw objectIdError(objectValue);
  return id;
}

/** The user or team receiving the role: one the caller sees (DAB's actor queryset). */
async function actorOf(tx: Queryable, ctx: RequestContext, actor: Actor, value: unknown): Promise<number> {
  if (typeof value !== 'number') throw new ApiError(400, { [actor]: [`Provide exactly one of ${actor} or ${actor}_ansible_id`] });
  if (!(await isVisible(tx, ctx, ctx.service.resources.get(actor), value))) throw new ApiError(400, { [actor]: [`Invalid pk "${value}" - object does not exist.`] });
  return value;
}

const GRANTS = { user: { table: 'role_users', relation: 'users', column: 'user_id' }, team: { table: 'role_parents', relation: 'teams', column: 'team_id' } } as const;

/**
 * Grants the role as POST /roles/{id}/users/ (or teams/) does, with the same checks and records,
 * then notes the definition used and who assigned it. An existing grant is answered as it is (DAB).
 */
async function assign(tx: Queryable, ctx: RequestContext, resource: Resource, actor: Actor, values: Values): Promise<AssignmentRow> {
  const definitionId = values.role_definition as number;
  const holder = await actorOf(tx, ctx, actor, values[actor]);
  const role = await roleOnObject(tx, ctx, definitionId, values.object_id);
  const roles = ctx.service.resources.get('role');
  const find = () => tx.query<AssignmentRow>(`SELECT * FROM ${resource.table} WHERE role_id = $1 AND ${GRANTS[actor].column} = $2`, [role, holder]);
  const [before] = await find();
  if (before) return before;
  await associate(tx, ctx, roles, { id: role } as ResourceRow, GRANTS[actor].relation, holder, false);
  const [granted] = await find();
  if (!granted) throw forbidden();
  const [managed] = await tx.query('SELECT 1 FROM role_definitions WHERE id = $1 AND managed', [definitionId]);
  await tx.query(`UPDATE ${GRANTS[actor].table} SET role_definition_id = $2, created_by_id = $3 WHERE id = $1`, [granted.id, managed ? null : definitionId, ctx.user?.id ?? null]);
  return { ...granted, role_definition_id: definitionId, created_by_id: ctx.user?.id ?? null };
}

/** Takes the grant away as /roles/{id}/users/ {disassociate} does: only those who may grant the role. */
async function unassign(tx: Queryable, ctx: RequestContext, actor: Actor, row: AssignmentRow): Promise<void> {
  await associate(tx, ctx, ctx.service.resources.get('role'), { id: row.role_id } as ResourceRow, GRANTS[actor].relation, row[`${actor}_id`]!, true);
}

/** Takes away every grant made through a custom definition being deleted. */
export async function revokeDefinitionAssignments(tx: Queryable, ctx: RequestContext, definitionId: number): Promise<void> {
  for (const actor of ['user', 'team'] as const) {
    const rows = await tx.query<AssignmentRow>(`SELECT * FROM role_${actor}_assignments WHERE role_definition_id = $1`, [definitionId]);
    for (const row of rows) await unassign(tx, ctx, actor, row);
  }
}

/** DAB's object_id is text, and its clients send a number as often as a string. */
function objectIdField(): Field {
  const field = text({ required: true, writeOnce: true, helpText: 'Primary key of the object this assignment applies to.' });
  return {
    ...field,
    // Any number: a fraction is then refused as no object's pk, with DAB's message.
    valueSchema: { anyOf: [{ type: 'string' }, { type: 'number' }] },
    parse: (value, ...rest) => field.parse(typeof value === 'number' ? String(value) : value, ...rest),
  };
}

function assignmentResource(actor: Actor) {
  const resource: Resource<AssignmentRow> = defineResource<AssignmentRow>({
    name: `role_${actor}_assignment`,
    table: `role_${actor}_assignments`,
    label: `Role ${actor === 'user' ? 'User' : 'Team'} Assignment List`,
    description: `Gives a ${actor} a role definition on one object (django-ansible-base); the same grants as /roles/{id}/${GRANTS[actor].relation}/.`,
    untracked: true,
    fields: {
      created: datetime({ readOnly: true, nullable: false }),
      created_by: ref('user', { readOnly: true, nullable: true }),
      content_type: text({ readOnly: true, helpText: 'The type of resource this applies to, like awx.inventory.' }),
      object_id: objectIdField(),
      role_definition: ref('role_definition', { required: true, writeOnce: true }),
      [actor]: ref(actor, { required: true, writeOnce: true }),
    },
    ordering: 'id',
    access: assignmentAccess,
    operations: { create: true, update: false, delete: true },
    create: (services, ctx, values) => services.db.transaction((tx) => assign(tx, ctx, resource as Resource, actor, values)),
    remove: (tx, ctx, row) => unassign(tx, ctx, actor, row),
  });
  return resource;
}

export const roleUserAssignments = assignmentResource('user');
export const roleTeamAssignments = assignmentResource('team');
