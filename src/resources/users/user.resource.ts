import { hash } from '@node-rs/argon2';
import {
  administersOrAuditsSomeOrganization,
  isSuperuser,
  learnCallerFacts,
  manageOrganizationAuth,
  objectsWithRole,
  seesAllUsersAndTeams,
  tenantsMayHide,
  seesEverything,
  type AccessPolicy,
} from '../../api/access.ts';
import { ApiError, ValidationError } from '../../api/errors.ts';
import { inNoOtherTenant } from '../../api/tenant-boundary.ts';
import { externalAccount } from '../../auth/oauth2.ts';
import { boolean, datetime, email, secret, text } from '../../api/fields.ts';
import { roleHeldOn } from '../../api/relations.ts';
import { recordAudit } from '../../audit/record.ts';
import { defineResource } from '../../api/resource.ts';
import type { Queryable } from '../../db/database.ts';
import type { RequestContext } from '../../api/context.ts';
import { auditGrant, type RoleRow } from '../../rbac/grants.ts';
import { readByUser, userRoles } from '../../rbac/relations.ts';
import { decideUserAdmin, userAdminFacts, type UserAdminFacts } from '../../rbac/user-admin.ts';
import { revokeTokensOfUser, userPersonalTokens, userTokens } from '../tokens/token.resource.ts';
import type { UserRow } from '../../db/tables.ts';

/** SQL: users who hold an organization's member_role (directly or as its admins) in an organization matching `orgCondition`. */
const membersOfOrganizations = (orgCondition: string) => `
  SELECT role_users.user_id FROM role_users
  JOIN role_ancestors ON role_ancestors.ancestor_id = role_users.role_id
  JOIN roles ON roles.id = role_ancestors.descendent_id AND roles.content_type = 'organization' AND roles.role_field = 'member_role'
  WHERE roles.object_id IN (${orgCondition})`;

/** What decides, for each of `users`, whether the caller administers him (see src/rbac/user-admin.ts), in one query. */
async function adminFactsAmong(ctx: RequestContext, tx: Queryable, users: readonly UserRow[]): Promise<Map<number, UserAdminFacts>> {
  const ids = users.filter((user) => !user.is_superuser && !user.is_system_auditor).map((user) => user.id);
  if (!ctx.user || !ids.length) return new Map();
  return userAdminFacts(tx, ctx.user.id, ids);
}

/** One lookup for a whole list page, shared by its rows (see AccessPolicy.canChange). */
const pageLookups = new WeakMap<readonly UserRow[], { ctx: RequestContext; facts: Promise<Map<number, UserAdminFacts>> }>();

/**
 * Whether the caller administers the user (AWX's rules: src/rbac/user-admin.ts); `allowOrphans`
 * for deleting, where a user in no organization may go by the hand of someone holding all his roles.
 */
function administers(ctx: RequestContext, tx: Queryable, user: UserRow, allowOrphans: boolean, page?: readonly UserRow[]): boolean | Promise<boolean> {
  if (isSuperuser(ctx)) return true;
  if (!ctx.user || !manageOrganizationAuth(ctx) || user.is_superuser || user.is_system_auditor) return false;
  if (!page || !page.includes(user)) return adminFactsAmong(ctx, tx, [user]).then((facts) => decideUserAdmin(ctx, user, facts.get(user.id), allowOrphans));
  let lookup = pageLookups.get(page);
  if (!lookup || lookup.ctx !== ctx) {
    lookup = { ctx, facts: adminFactsAmong(ctx, tx, page) };
    pageLookups.set(page, lookup);
  }
  return lookup.facts.then((facts) => decideUserAdmin(ctx, user, facts.get(user.id), allowOrphans));
}

const userAccess: AccessPolicy<UserRow> = {
  // Users see themselves and the members of the organizations they may read; with
  // ORG_ADMINS_CAN_SEE_ALL_USERS, organization admins and auditors see everyone.
  visible: (ctx, alias, params) => {
    if (seesEverything(ctx)) return null;
    const all = seesAllUsersAndTeams(ctx);
    // Without tenants, one who sees all sees every one: no condition (and no parameter) at all.
    if (all === true && !tenantsMayHide(ctx)) return null;
    const me = params.add(ctx.user?.id ?? 0);
    // One IN over both (rather than "= me OR IN (...)") lets the database start from the members instead of scanning every user.
    const own = `${alias}.id IN (SELECT ${me}::integer UNION ALL ${membersOfOrganizations(objectsWithRole('organization', ['read_role'], me))})`;
    if (all === false) return own;
    // Every user, but the members of tenants the caller neither administers nor audits (docs/tenants.md, "Visibility").
    const outsideTenants = inNoOtherTenant(`${alias}.id`, me);
    return all === true ? `(${outsideTenants} OR ${own})` : `((${administersOrAuditsSomeOrganization(me)} AND ${outsideTenants}) OR ${own})`;
  },
  prepare: learnCallerFacts,
  // Superusers, and organization admins (while MANAGE_ORGANIZATION_AUTH is on).
  canCreate: async (ctx, tx) => {
    if (isSuperuser(ctx)) return true;
    if (!ctx.user || !manageOrganizationAuth(ctx)) return false;
    return (await tx.query(`SELECT 1 FROM (${objectsWithRole('organization', ['admin_role'], '$1')}) AS administered LIMIT 1`, [ctx.user.id])).length > 0;
  },
  // Oneself, or as the one who administers the user. With MANAGE_ORGANIZATION_AUTH off, only superusers change users (as AWX).
  canChange: (ctx, tx, row, _values, page) =>
    ctx.user?.id === row.id ? isSuperuser(ctx) || manageOrganizationAuth(ctx) : administers(ctx, tx, row, false, page),
  // Never oneself.
  canDelete: (ctx, tx, row, page) => ctx.user?.id !== row.id && administers(ctx, tx, row, true, page),
  canAttach: isSuperuser,
};

/** A new password ends every session of the user (a stolen session does not outlive a reset). */
async function passwordChanged(tx: Queryable, ctx: RequestContext, user: UserRow): Promise<void> {
  const ended = await tx.query('DELETE FROM sessions WHERE user_id = $1 RETURNING 1', [user.id]);
  await recordAudit(tx, { type: 'user.password_changed', ctx, target: { type: 'user', id: user.id, name: user.username }, detail: { sessions_ended: ended.length } });
}

/** Keeps the system_administrator and system_auditor roles in step with the user's flags; each change goes to the audit log. */
async function syncSystemRoles(tx: Queryable, ctx: RequestContext, user: UserRow): Promise<void> {
  for (const [flag, role] of [['is_superuser', 'system_administrator'], ['is_system_auditor', 'system_auditor']] as const) {
    const changed = user[flag]
      ? await tx.query<{ role_id: number }>(
          `INSERT INTO role_users (role_id, user_id) SELECT id, $1 FROM roles WHERE singleton_name = $2 ON CONFLICT DO NOTHING RETURNING role_id`,
          [user.id, role],
        )
      : await tx.query<{ role_id: number }>(
          `DELETE FROM role_users WHERE user_id = $1 AND role_id = (SELECT id FROM roles WHERE singleton_name = $2) RETURNING role_id`,
          [user.id, role],
        );
    for (const { role_id } of changed) {
      const systemRole: RoleRow = { id: role_id, role_field: role, content_type: null, object_id: null, singleton_name: role };
      await auditGrant(tx, ctx, systemRole, { type: 'user', id: user.id }, !user[flag]);
    }
  }
}

export const hashPassword = (password: string) => hash(password);

export const users = defineResource<UserRow>({
  name: 'user',
  table: 'users',
  label: 'User List',
  description: 'People who sign in to the service.',
  fields: {
    username: text({
      required: true,
      maxLength: 150,
      allowBlank: false,
      pattern: /^[\w.@+-]+$/,
      patternMessage: 'Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters.',
      helpText: 'Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.',
    }),
    first_name: text({ maxLength: 150 }),
    last_name: text({ maxLength: 150 }),
    email: email({ label: 'Email address' }),
    is_superuser: boolean({ label: 'Superuser status', helpText: 'Designates that this user has all permissions without explicitly assigning them.' }),
    is_system_auditor: boolean({ label: 'Is system auditor' }),
    password: secret({ required: true, allowBlank: false, helpText: 'Field used to change the password.' }),
    ldap_dn: text({ readOnly: true, label: 'LDAP DN' }),
    last_login: datetime({ readOnly: true }),
    external_account: text({ readOnly: true, nullable: true, helpText: 'Set if the account is managed by an external service' }),
  },
  namedUrl: ['username'],
  search: ['username', 'first_name', 'last_name', 'email'],
  ordering: 'username',
  summaryColumns: ['id', 'username', 'first_name', 'last_name'],
  unique: [['username']],
  related: {
    teams: roleHeldOn('team', 'team', 'member_role'),
    organizations: roleHeldOn('organization', 'organization', 'member_role'),
    admin_of_organizations: roleHeldOn('organization', 'organization', 'admin_role'),
    roles: userRoles,
    projects: readByUser('project', 'project', 'projects'),
    // Created here with the user as owner (AWX's UserCredentialsList: no organization, the user administers it).
    credentials: { ...readByUser('credential', 'credential', 'credentials'), createWith: 'user', createValues: { organization: null } },
    tokens: userTokens,
    personal_tokens: userPersonalTokens,
  },
  access: userAccess,
  // As AWX: the social logins of the account, by provider and uid; none for local accounts.
  decorate: (_row, out) => {
    out.auth = [];
  },
  hooks: {
    async beforeWrite(_tx, ctx, values, existing) {
      for (const flag of ['is_superuser', 'is_system_auditor'] as const) {
        if (flag in values && values[flag] !== (existing?.[flag] ?? false) && !ctx.user?.isSuperuser) {
          throw new ApiError(403, { detail: `Only a system administrator may change ${flag}.` });
        }
      }
      const source = existing ? externalAccount(existing) : null;
      // As AWX: the external source owns the account's password; a local one would be a second way in.
      if (source && typeof values.password === 'string') {
        throw new ValidationError({ password: [`Unable to change password for a user managed by an external authentication source (${source}).`] });
      }
      if (typeof values.password === 'string') values.password = await hashPassword(values.password);
    },
    async afterWrite(tx, ctx, row, existing) {
      await syncSystemRoles(tx, ctx, row);
      if (existing && existing.password !== row.password) await passwordChanged(tx, ctx, row);
    },
    /** The user's tokens are revoked first, each recorded. */
    beforeDelete: (tx, ctx, row) => revokeTokensOfUser(tx, ctx, row.id),
  },
});
