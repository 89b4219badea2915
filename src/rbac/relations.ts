import type { Relation } from '../api/relations.ts';
import { assertCanGrant, assertTeamMayHold, grantToTeam, grantToUser, loadRole } from './grants.ts';
import { roleId } from './graph.ts';
import { notFound } from '../api/errors.ts';
import type { Queryable } from '../db/database.ts';

/**
 * Roles granted to teams: links from a team's member_role to another role. A team's own read_role
 * also has its member_role as a parent, but that is how the team is built, not a grant.
 */
const TEAM_MEMBER_ROLES = `role_parents JOIN roles AS team_member ON team_member.id = role_parents.parent_id
  AND team_member.content_type = 'team' AND team_member.role_field = 'member_role'
  JOIN roles AS granted ON granted.id = role_parents.role_id
  AND (granted.content_type IS DISTINCT FROM 'team' OR granted.object_id <> team_member.object_id)`;

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
    authorize: async (ctx, tx, objectId, userId) => assertCanGrant(ctx, tx, await objectRole(tx, contentType, objectId, roleField), { type: 'user', id: userId }),
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
  authorize: async (ctx, tx, roleId, userId) => assertCanGrant(ctx, tx, await loadRole(tx, roleId), { type: 'user', id: userId }),
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
  authorize: async (ctx, tx, roleId, teamId, detach) => {
    const role = await loadRole(tx, roleId);
    assertTeamMayHold(role, teamId, detach);
    await assertCanGrant(ctx, tx, role, { type: 'team', id: teamId });
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
  authorize: async (ctx, tx, userId, roleId) => assertCanGrant(ctx, tx, await loadRole(tx, roleId), { type: 'user', id: userId }),
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
  authorize: async (ctx, tx, teamId, roleId, detach) => {
    const role = await loadRole(tx, roleId);
    assertTeamMayHold(role, teamId, detach);
    await assertCanGrant(ctx, tx, role, { type: 'team', id: teamId });
  },
  attach: async (tx, teamId, roleId, ctx) => grantToTeam(tx, ctx, await loadRole(tx, roleId), teamId, false),
  detach: async (tx, teamId, roleId, ctx) => grantToTeam(tx, ctx, await loadRole(tx, roleId), teamId, true),
};

/** /<resource>/{id}/object_roles/: the roles of one object. */
export function objectRoles(contentType: string): Relation {
  return {
    target: 'role',
    // A subquery rather than a CASE over every role, so the (content_type, object_id) index serves it.
    from: `(SELECT id, object_id FROM roles WHERE content_type = '${contentType}') AS object_role`,
    parentColumn: 'object_role.object_id',
    targetColumn: 'object_role.id',
    attachable: false,
  };
}
