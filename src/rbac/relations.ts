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
    // POST without an id creates the user and grants the role (AWX's BaseUsersList).
    createAndLink: {},
    association: roleField,
    authorize: async (ctx, tx, objectId, userId) => assertCanGrant(ctx, tx, await objectRole(tx, contentType, objectId, roleField), { type: 'user', id: userId }),
    attach: async (tx, objectId, userId, ctx) => grantToUser(tx, ctx, await objectRole(tx, contentType, objectId, roleField), userId, false),
    detach: async (tx, objectId, userId, ctx) => grantToUser(tx, ctx, await objectRole(tx, contentType, objectId, roleField), userId, true),
  };
}

/**
 * Grants of roles to users, seen from either side: /roles/{id}/users/ (the users holding the role
 * directly) and /users/{id}/roles/ (the roles a user holds directly). POST {id} grants.
 */
function userGrants(from: 'role' | 'user'): Relation {
  const roleSide = from === 'role';
  const split = (parentId: number, targetId: number) => (roleSide ? { roleId: parentId, userId: targetId } : { roleId: targetId, userId: parentId });
  return {
    target: roleSide ? 'user' : 'role',
    from: 'role_users',
    parentColumn: roleSide ? 'role_users.role_id' : 'role_users.user_id',
    targetColumn: roleSide ? 'role_users.user_id' : 'role_users.role_id',
    attachable: true,
    association: roleSide ? 'members' : 'roles',
    authorize: async (ctx, tx, parentId, targetId) => {
      const { roleId, userId } = split(parentId, targetId);
      await assertCanGrant(ctx, tx, await loadRole(tx, roleId), { type: 'user', id: userId });
    },
    attach: async (tx, parentId, targetId, ctx) => {
      const { roleId, userId } = split(parentId, targetId);
      return grantToUser(tx, ctx, await loadRole(tx, roleId), userId, false);
    },
    detach: async (tx, parentId, targetId, ctx) => {
      const { roleId, userId } = split(parentId, targetId);
      return grantToUser(tx, ctx, await loadRole(tx, roleId), userId, true);
    },
  };
}

/** Grants of roles to teams, seen from either side: /roles/{id}/teams/ and /teams/{id}/roles/. */
function teamGrants(from: 'role' | 'team'): Relation {
  const roleSide = from === 'role';
  const split = (parentId: number, targetId: number) => (roleSide ? { roleId: parentId, teamId: targetId } : { roleId: targetId, teamId: parentId });
  return {
    target: roleSide ? 'team' : 'role',
    from: TEAM_MEMBER_ROLES,
    parentColumn: roleSide ? 'role_parents.role_id' : 'team_member.object_id',
    targetColumn: roleSide ? 'team_member.object_id' : 'role_parents.role_id',
    attachable: true,
    association: roleSide ? 'parents' : 'roles',
    authorize: async (ctx, tx, parentId, targetId, detach) => {
      const { roleId, teamId } = split(parentId, targetId);
      const role = await loadRole(tx, roleId);
      assertTeamMayHold(role, teamId, detach);
      await assertCanGrant(ctx, tx, role, { type: 'team', id: teamId });
    },
    attach: async (tx, parentId, targetId, ctx) => {
      const { roleId, teamId } = split(parentId, targetId);
      return grantToTeam(tx, ctx, await loadRole(tx, roleId), teamId, false);
    },
    detach: async (tx, parentId, targetId, ctx) => {
      const { roleId, teamId } = split(parentId, targetId);
      return grantToTeam(tx, ctx, await loadRole(tx, roleId), teamId, true);
    },
  };
}

export const roleUsers = userGrants('role');
export const userRoles = userGrants('user');
export const roleTeams = teamGrants('role');
export const teamRoles = teamGrants('team');

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

/**
 * /users/{id}/projects/, /users/{id}/credentials/: the objects of `contentType` (rows of `table`)
 * the user (the parent) reads, through any role or team; a superuser or system auditor reads them
 * all. The list shows only those the caller may see too, as AWX intersects both.
 */
export function readByUser(target: string, contentType: string, table: string): Relation {
  return {
    target,
    from: `(SELECT role_users.user_id, roles.object_id FROM role_users
              JOIN role_ancestors ON role_ancestors.ancestor_id = role_users.role_id
              JOIN roles ON roles.id = role_ancestors.descendent_id AND roles.content_type = '${contentType}' AND roles.role_field = 'read_role'
            UNION SELECT users.id, readable.id FROM users JOIN ${table} AS readable ON users.is_superuser OR users.is_system_auditor) AS user_reads`,
    parentColumn: 'user_reads.user_id',
    targetColumn: 'user_reads.object_id',
    attachable: false,
  };
}

/** /teams/{id}/projects/, /teams/{id}/credentials/: the objects of `contentType` the team's members read through it. */
export function readByTeam(target: string, contentType: string): Relation {
  return {
    target,
    from: `roles AS team_member JOIN role_ancestors ON role_ancestors.ancestor_id = team_member.id
             AND team_member.content_type = 'team' AND team_member.role_field = 'member_role'
           JOIN roles AS team_reads ON team_reads.id = role_ancestors.descendent_id
             AND team_reads.content_type = '${contentType}' AND team_reads.role_field = 'read_role'`,
    parentColumn: 'team_member.object_id',
    targetColumn: 'team_reads.object_id',
    attachable: false,
  };
}
