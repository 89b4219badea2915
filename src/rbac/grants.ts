import type { Queryable, Row } from '../db/database.ts';
import type { RequestContext } from '../api/context.ts';
import { hasObjectRole, isSuperuser, manageOrganizationAuth } from '../api/access.ts';
import { ApiError, forbidden, notFound } from '../api/errors.ts';
import { isVisible } from '../api/list.ts';
import { recordAudit } from '../audit/record.ts';
import { addParent, removeParent, roleId } from './graph.ts';
import { administersUser } from './user-admin.ts';

export interface RoleRow extends Row {
  id: number;
  role_field: string;
  content_type: string | null;
  object_id: number | null;
  singleton_name: string | null;
}

/** Who receives (or loses) a role: a user, or a team (whose members then hold it). */
export interface Holder {
  type: 'user' | 'team';
  id: number;
}

export async function loadRole(tx: Queryable, id: number): Promise<RoleRow> {
  const [role] = await tx.query<RoleRow>('SELECT id, role_field, content_type, object_id, singleton_name FROM roles WHERE id = $1', [id]);
  if (!role) throw notFound();
  return role;
}

/** Roles that make their holder part of an organization or a team: handing them out is managing membership. */
const isMembershipRole = (role: RoleRow) =>
  (role.content_type === 'organization' || role.content_type === 'team') && (role.role_field === 'admin_role' || role.role_field === 'member_role');

/**
 * Only those who administer an object may hand out its roles: its admin_role holders (an
 * organization admin administers everything in the organization). System roles: superusers only.
 * As AWX: the caller must also see the user or team receiving the role; organization and team
 * memberships need MANAGE_ORGANIZATION_AUTH; and an organization's admin and member roles go only
 * to users the caller administers (so an admin of one organization cannot reach into another
 * through a shared member).
 */
export async function assertCanGrant(ctx: RequestContext, tx: Queryable, role: RoleRow, holder: Holder): Promise<void> {
  if (isSuperuser(ctx)) return;
  if (role.singleton_name || role.content_type === null || role.object_id === null) throw forbidden();
  if (!(await isVisible(tx, ctx, ctx.service.resources.get(holder.type), holder.id))) throw forbidden();
  if (isMembershipRole(role) && !manageOrganizationAuth(ctx)) throw forbidden();
  if (!(await hasObjectRole(ctx, tx, role.content_type, role.object_id, 'admin_role'))) throw forbidden();
  if (role.content_type === 'organization' && isMembershipRole(role) && holder.type === 'user') {
    const [user] = await tx.query<{ id: number; is_superuser: boolean; is_system_auditor: boolean }>('SELECT id, is_superuser, is_system_auditor FROM users WHERE id = $1', [holder.id]);
    if (!user || !(await administersUser(ctx, tx, user, true))) throw forbidden();
  }
}

/**
 * Grants to a team that are never valid, whoever asks (400, as AWX): system roles, an
 * organization's admin and member roles (membership of an organization is personal), and the
 * team's own roles. Revoking an organization role stays possible, for links made before.
 */
export function assertTeamMayHold(role: RoleRow, teamId: number, revoke: boolean): void {
  if (role.singleton_name) throw new ApiError(400, { detail: 'System roles cannot be granted to a team.' });
  if (role.content_type === 'team' && role.object_id === teamId) throw new ApiError(400, { detail: 'A team cannot be granted its own roles.' });
  if (!revoke && role.content_type === 'organization' && isMembershipRole(role)) {
    throw new ApiError(400, { detail: 'You cannot assign an Organization participation role as a child role for a Team.' });
  }
}

const SYSTEM_FLAGS: Record<string, string> = { system_administrator: 'is_superuser', system_auditor: 'is_system_auditor' };

/** Records a grant or a revocation in the audit log (in the change's transaction). */
export async function auditGrant(tx: Queryable, ctx: RequestContext, role: RoleRow, holder: Holder, revoke: boolean): Promise<void> {
  await recordAudit(tx, {
    type: revoke ? 'rbac.role_revoked' : 'rbac.role_granted',
    ctx,
    target: { type: holder.type, id: holder.id },
    detail: { role_id: role.id, role_field: role.role_field, content_type: role.content_type ?? 'system', object_id: role.object_id },
  });
}

/** Gives a user a role or takes it away. Answers whether anything changed. */
export async function grantToUser(tx: Queryable, ctx: RequestContext, role: RoleRow, userId: number, revoke: boolean): Promise<boolean> {
  const changed = revoke
    ? (await tx.query('DELETE FROM role_users WHERE role_id = $1 AND user_id = $2 RETURNING 1', [role.id, userId])).length > 0
    : (await tx.query('INSERT INTO role_users (role_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1', [role.id, userId])).length > 0;
  const flag = role.singleton_name ? SYSTEM_FLAGS[role.singleton_name] : undefined;
  // The system roles and the user's flags are one fact, stored twice.
  if (flag) await tx.query(`UPDATE users SET ${flag} = $1, modified = now() WHERE id = $2`, [!revoke, userId]);
  if (changed) await auditGrant(tx, ctx, role, { type: 'user', id: userId }, revoke);
  return changed;
}

/** Gives a team a role (its members then hold it) or takes it away. */
export async function grantToTeam(tx: Queryable, ctx: RequestContext, role: RoleRow, teamId: number, revoke: boolean): Promise<boolean> {
  assertTeamMayHold(role, teamId, revoke);
  const memberRole = await roleId(tx, 'team', teamId, 'member_role');
  if (memberRole === null) throw notFound();
  let changed: boolean;
  if (revoke) changed = await removeParent(tx, role.id, memberRole);
  else {
    try {
      changed = await addParent(tx, role.id, memberRole);
    } catch {
      throw new ApiError(400, { detail: 'This grant would make the role inherit from itself.' });
    }
  }
  if (changed) await auditGrant(tx, ctx, role, { type: 'team', id: teamId }, revoke);
  return changed;
}
