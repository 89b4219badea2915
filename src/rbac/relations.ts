import type { Relation } from '../api/relations.ts';
import { assertCanGrant, assertCanUseTeam, grantToTeam, grantToUser, loadRole } from './grants.ts';
import { roleId } from './graph.ts';
import { notFound } from '../api/errors.ts';
import type { Queryable } from '../db/database.ts';

const TEAM_MEMBER_ROLES = `role_parents JOIN roles AS team_member ON team_member.id = role_parents.parent_id
  AND team_member.content_type = 'team' AND team_member.role_field = 'member_role'`;

async function objectRole(tx: Queryable, contentType: string, objectId: number, roleField: string) {
  const id = await roleId(tx, contentType, objectId, roleField);
  if (id === null) throw notFound();
  return loadRole(tx, id);
}

/** Users holding one role of the parent object directly (organization users = member_role, admins = admin_role). */
export function roleHolders(contentType: string, roleField: string): Relation {
  return {
    target: 'user',
    from: `role_users JOIN roles ON roles.id = role_users.role_id AND roles.content_type = '${contentType}' AND roles.role_field = '${roleField}'`,
    parentColumn: 'roles.object_id',
    targetColumn: 'role_users.user_id',
    attachable: true,
    association: roleField,
    authorize: async (ctx, tx, objectId) => assertCanGrant(ctx, tx, await objectRole(tx, contentType, objectId, roleField)),
    attach: async (tx, objectId, userId, ctx) => grantToUser(tx, ctx, await objectRole(tx, contentType, objectId, roleField), userId, false),
    detach: async (tx, objectId, userId, ctx) => grantToUser(tx, ctx, await objectRole(tx, contentType, objectId, roleField), userId, true),
  };
}

/** /roles/{id}/users/: the users holding the role directly. */
export const roleUsers: Relation = {
  target: 'user',
  from: 'role_users',
  parentColumn: 'role_users.role_id',
  targetColumn: 'role_users.user_id',
  attachable: true,
  association: 'members',
  authorize: async (ctx, tx, roleId) => assertCanGrant(ctx, tx, await loadRole(tx, roleId)),
  attach: async (tx, roleId, userId, ctx) => grantToUser(tx, ctx, await loadRole(tx, roleId), userId, false),
  detach: async (tx, roleId, userId, ctx) => grantToUser(tx, ctx, await loadRole(tx, roleId), userId, true),
};

/** /roles/{id}/teams/: the teams granted the role. */
export const roleTeams: Relation = {
  target: 'team',
  from: TEAM_MEMBER_ROLES,
  parentColumn: 'role_parents.role_id',
  targetColumn: 'team_member.object_id',
  attachable: true,
  association: 'parents',
  authorize: async (ctx, tx, roleId, teamId) => {
    await assertCanGrant(ctx, tx, await loadRole(tx, roleId));
    await assertCanUseTeam(ctx, tx, teamId);
  },
  attach: async (tx, roleId, teamId, ctx) => grantToTeam(tx, ctx, await loadRole(tx, roleId), teamId, false),
  detach: async (tx, roleId, teamId, ctx) => grantToTeam(tx, ctx, await loadRole(tx, roleId), teamId, true),
};

/** /users/{id}/roles/: the roles a user holds directly; POST {id} grants one. */
export const userRoles: Relation = {
  target: 'role',
  from: 'role_users',
  parentColumn: 'role_users.user_id',
  targetColumn: 'role_users.role_id',
  attachable: true,
  association: 'roles',
  authorize: async (ctx, tx, _userId, roleId) => assertCanGrant(ctx, tx, await loadRole(tx, roleId)),
  attach: async (tx, userId, roleId, ctx) => grantToUser(tx, ctx, await loadRole(tx, roleId), userId, false),
  detach: async (tx, userId, roleId, ctx) => grantToUser(tx, ctx, await loadRole(tx, roleId), userId, true),
};

/** /teams/{id}/roles/: the roles granted to a team; POST {id} grants one. */
export const teamRoles: Relation = {
  target: 'role',
  from: TEAM_MEMBER_ROLES,
  parentColumn: 'team_member.object_id',
  targetColumn: 'role_parents.role_id',
  attachable: true,
  association: 'roles',
  authorize: async (ctx, tx, teamId, roleId) => {
    await assertCanGrant(ctx, tx, await loadRole(tx, roleId));
    await assertCanUseTeam(ctx, tx, teamId);
  },
  attach: async (tx, teamId, roleId, ctx) => grantToTeam(tx, ctx, await loadRole(tx, roleId), teamId, false),
  detach: async (tx, teamId, roleId, ctx) => grantToTeam(tx, ctx, await loadRole(tx, roleId), teamId, true),
};

/** /<resource>/{id}/object_roles/: the roles of one object. */
export function objectRoles(contentType: string): Relation {
  return {
    target: 'role',
    from: `roles AS object_role`,
    parentColumn: `(CASE WHEN object_role.content_type = '${contentType}' THEN object_role.object_id END)`,
    targetColumn: 'object_role.id',
    attachable: false,
  };
}
