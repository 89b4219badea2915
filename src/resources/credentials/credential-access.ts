import { hasObjectRole, hasObjectRoleOnRow, isSuperuser, manageOrganizationAuth, visibleThroughRole, type AccessPolicy } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { forbidden } from '../../api/errors.ts';
import type { Values } from '../../api/resource.ts';
import type { Queryable } from '../../db/database.ts';
import type { CredentialRow, UserRow } from '../../db/tables.ts';
import { administersUser } from '../../rbac/user-admin.ts';

/** Organization admins and credential admins of the organization manage its credentials (as AWX). */
export const administersCredentialsOf = (ctx: RequestContext, tx: Queryable, organizationId: number) =>
  hasObjectRole(ctx, tx, 'organization', organizationId, 'credential_admin_role');

/** Whether the caller may make a credential owned by `values` (AWX's CredentialAccess.can_add). */
async function mayCreate(ctx: RequestContext, tx: Queryable, values: Values): Promise<boolean> {
  if (isSuperuser(ctx)) return true;
  if (!ctx.user) return false;
  // No body (OPTIONS): anyone may make a credential of his own.
  if (!Object.keys(values).length) return true;
  const { user, team, organization } = values;
  if (typeof user !== 'number' && typeof team !== 'number' && typeof organization !== 'number') return false;
  if (typeof user === 'number' && user !== ctx.user.id) {
    const [row] = await tx.query<Pick<UserRow, 'id' | 'is_superuser' | 'is_system_auditor'>>('SELECT id, is_superuser, is_system_auditor FROM users WHERE id = $1', [user]);
    if (!row || !(await administersUser(ctx, tx, row, false))) return false;
  }
  if (typeof team === 'number' && !(manageOrganizationAuth(ctx) && (await hasObjectRole(ctx, tx, 'team', team, 'admin_role')))) return false;
  if (typeof organization === 'number' && !(await administersCredentialsOf(ctx, tx, organization))) return false;
  return true;
}

/** Moving a credential to or from an organization takes its credential admins on both sides. */
async function mayMove(ctx: RequestContext, tx: Queryable, from: number | null, to: unknown): Promise<boolean> {
  if (to === undefined || to === from) return true;
  if (typeof to === 'number' && !(await administersCredentialsOf(ctx, tx, to))) return false;
  return from === null || administersCredentialsOf(ctx, tx, from);
}

/**
 * As AWX: a credential is seen by the holders of its read_role (its users, its admins, the
 * auditors and credential admins of its organization); its admins change and delete it.
 * Managed credentials are read-only.
 */
/** A copy is made by the credential's admins who may also create one with the same owner. */
async function mayCopy(ctx: RequestContext, db: Queryable, source: CredentialRow): Promise<boolean> {
  if (isSuperuser(ctx)) return true;
  if (!(await hasObjectRole(ctx, db, 'credential', source.id, 'admin_role'))) return false;
  return source.organization_id === null || administersCredentialsOf(ctx, db, source.organization_id);
}

export const credentialAccess: AccessPolicy<CredentialRow> = {
  visible: (ctx, alias, params) => visibleThroughRole(ctx, alias, params, 'credential', 'read_role'),
  canCreate: mayCreate,
  canChange: async (ctx, tx, row, values, page) => {
    if (row.managed) {
      if (isSuperuser(ctx) && Object.keys(values).length) throw forbidden('Modifications not allowed for managed credentials');
      return false;
    }
    if (!(await hasObjectRoleOnRow(ctx, tx, 'credential', 'admin_role', row, page))) return false;
    return isSuperuser(ctx) || mayMove(ctx, tx, row.organization_id, values.organization);
  },
  canDelete: (ctx, tx, row, page) => !row.managed && hasObjectRoleOnRow(ctx, tx, 'credential', 'admin_role', row, page),
  canAttach: () => false,
  actions: { copy: mayCopy, use: (ctx, tx, row) => hasObjectRole(ctx, tx, 'credential', row.id, 'use_role') },
  capabilities: {
    copy: mayCopy,
    use: (ctx, tx, row, page) => hasObjectRoleOnRow(ctx, tx, 'credential', 'use_role', row, page),
  },
};
