import type { Queryable, Row } from '../db/database.ts';
import type { RequestContext } from '../api/context.ts';
import { hasObjectRole, isSuperuser } from '../api/access.ts';
import { ApiError, forbidden, notFound } from '../api/errors.ts';
import { recordAudit } from '../audit/record.ts';
import { addParent, removeParent, roleId } from './graph.ts';

export interface RoleRow extends Row {
  id: number;
  role_field: string;
  content_type: string | null;
  object_id: number | null;
  singleton_name: string | null;
}

export async function loadRole(tx: Queryable, id: number): Promise<RoleRow> {
  const [role] = await tx.query<RoleRow>('SELECT id, role_field, content_type, object_id, singleton_name FROM roles WHERE id = $1', [id]);
  if (!role) throw notFound();
  return role;
}

/**
 * Only those who administer an object may hand out its roles: its admin_role holders (an
 * organization admin administers everything in the organization). System roles: superusers only.
 */
export async function assertCanGrant(ctx: RequestContext, tx: Queryable, role: RoleRow): Promise<void> {
  if (isSuperuser(ctx)) return;
  if (role.singleton_name || role.content_type === null || role.object_id === null) throw forbidden();
  if (!(await hasObjectRole(ctx, tx, role.content_type, role.object_id, 'admin_role'))) throw forbidden();
}

const SYSTEM_FLAGS: Record<string, string> = { system_administrator: 'is_superuser', system_auditor: 'is_system_auditor' };

async function audit(tx: Queryable, ctx: RequestContext, role: RoleRow, holder: { type: 'user' | 'team'; id: number }, revoke: boolean) {
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
  if (changed) await audit(tx, ctx, role, { type: 'user', id: userId }, revoke);
  return changed;
}

/** Gives a team a role (its members then hold it) or takes it away. */
export async function grantToTeam(tx: Queryable, ctx: RequestContext, role: RoleRow, teamId: number, revoke: boolean): Promise<boolean> {
  if (role.singleton_name) throw new ApiError(400, { detail: 'System roles cannot be granted to a team.' });
  const memberRole = await roleId(tx, 'team', teamId, 'member_role');
  if (memberRole === null) throw notFound();
  if (role.content_type === 'team' && role.object_id === teamId) throw new ApiError(400, { detail: 'A team cannot be granted its own roles.' });
  let changed: boolean;
  if (revoke) changed = await removeParent(tx, role.id, memberRole);
  else {
    try {
      changed = await addParent(tx, role.id, memberRole);
    } catch {
      throw new ApiError(400, { detail: 'This grant would make the role inherit from itself.' });
    }
  }
  if (changed) await audit(tx, ctx, role, { type: 'team', id: teamId }, revoke);
  return changed;
}

/** To grant a role to a team the caller must also administer the team. */
export async function assertCanUseTeam(ctx: RequestContext, tx: Queryable, teamId: number): Promise<void> {
  if (!(await hasObjectRole(ctx, tx, 'team', teamId, 'admin_role'))) throw forbidden();
}
