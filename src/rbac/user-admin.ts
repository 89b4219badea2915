import type { Queryable } from '../db/database.ts';
import type { UserRow } from '../db/tables.ts';

/** What deciding about a user reads of his row. */
type AdministeredUser = Pick<UserRow, 'id' | 'is_superuser' | 'is_system_auditor'>;
import type { RequestContext } from '../api/context.ts';
import { isSuperuser, manageOrganizationAuth, rolesOfUser } from '../api/access.ts';

/**
 * Whether the caller administers a user account (may change it, delete it, or add it to an
 * organization), as AWX decides it:
 *
 * - superusers administer everyone; nobody else administers a superuser or a system auditor;
 * - a user who belongs to organizations is administered by whoever administers every one of them
 *   (an admin of one of his organizations does not administer a member of another as well);
 * - a user in no organization is administered by superusers only, except that he may be deleted
 *   (or added to an organization) by someone who holds every role he holds;
 * - with MANAGE_ORGANIZATION_AUTH off, only superusers administer users.
 */

/** What the decision needs to know about one user, relative to the caller. */
export interface UserAdminFacts {
  /** Organizations the user is a member of (directly, as their admin, or through a team). */
  organizations: number;
  /** Of those, the ones the caller does not administer. */
  foreignOrganizations: number;
  /** Roles the user holds directly that the caller does not hold. */
  foreignRoles: number;
}

/** The facts for each of `userIds`, in one query. */
export async function userAdminFacts(tx: Queryable, callerId: number, userIds: readonly number[]): Promise<Map<number, UserAdminFacts>> {
  const facts = new Map<number, UserAdminFacts>();
  if (!userIds.length) return facts;
  const rows = await tx.query<{ id: number; organizations: number; foreign_organizations: number; foreign_roles: number }>(
    `WITH mine AS (${rolesOfUser('$1')}),
     administered AS (
       SELECT roles.object_id FROM roles
       WHERE roles.content_type = 'organization' AND roles.role_field = 'admin_role' AND roles.id IN (SELECT descendent_id FROM mine)),
     membership AS (
       SELECT DISTINCT role_users.user_id, roles.object_id AS organization_id FROM role_users
       JOIN role_ancestors ON role_ancestors.ancestor_id = role_users.role_id
       JOIN roles ON roles.id = role_ancestors.descendent_id AND roles.content_type = 'organization' AND roles.role_field = 'member_role'
       WHERE role_users.user_id = ANY($2::integer[]))
     SELECT candidate.id,
       (SELECT count(*) FROM membership m WHERE m.user_id = candidate.id)::int AS organizations,
       (SELECT count(*) FROM membership m WHERE m.user_id = candidate.id
          AND m.organization_id NOT IN (SELECT object_id FROM administered))::int AS foreign_organizations,
       (SELECT count(*) FROM role_users ru WHERE ru.user_id = candidate.id
          AND ru.role_id NOT IN (SELECT descendent_id FROM mine))::int AS foreign_roles
     FROM unnest($2::integer[]) AS candidate(id)`,
    [callerId, [...new Set(userIds)]],
  );
  for (const row of rows) {
    facts.set(row.id, { organizations: row.organizations, foreignOrganizations: row.foreign_organizations, foreignRoles: row.foreign_roles });
  }
  return facts;
}

/**
 * The decision for one user row, given its facts. `allowOrphans`: a user in no organization may
 * be administered by someone holding every role he holds (for deleting him, or adding him to an
 * organization); otherwise only superusers administer such a user.
 */
export function decideUserAdmin(ctx: RequestContext, user: AdministeredUser, facts: UserAdminFacts | undefined, allowOrphans: boolean): boolean {
  if (isSuperuser(ctx)) return true;
  if (!ctx.user || !manageOrganizationAuth(ctx)) return false;
  if (user.is_superuser || user.is_system_auditor) return false;
  if (!facts) return false;
  if (facts.organizations === 0) return allowOrphans && facts.foreignRoles === 0;
  return facts.foreignOrganizations === 0;
}

/** Whether the caller administers one user, given his row (one query unless the answer is plain). */
export async function administersUser(ctx: RequestContext, tx: Queryable, user: AdministeredUser, allowOrphans: boolean): Promise<boolean> {
  if (isSuperuser(ctx)) return true;
  if (!ctx.user || !manageOrganizationAuth(ctx) || user.is_superuser || user.is_system_auditor) return false;
  const facts = await userAdminFacts(tx, ctx.user.id, [user.id]);
  return decideUserAdmin(ctx, user, facts.get(user.id), allowOrphans);
}
