import { hash } from '@node-rs/argon2';
import { isSuperuser, objectsWithRole, seesEverything, type AccessPolicy } from '../../api/access.ts';
import { ApiError } from '../../api/errors.ts';
import { boolean, datetime, email, secret, text } from '../../api/fields.ts';
import { roleHeldOn } from '../../api/relations.ts';
import { defineResource } from '../../api/resource.ts';
import type { Queryable, Row } from '../../db/database.ts';
import type { RequestContext } from '../../api/context.ts';
import { userRoles } from '../../rbac/relations.ts';
import { userPersonalTokens, userTokens } from '../tokens/token.resource.ts';

/** SQL: users who hold an organization's member_role (directly or as its admins) in an organization matching `orgCondition`. */
const membersOfOrganizations = (orgCondition: string) => `
  SELECT role_users.user_id FROM role_users
  JOIN role_ancestors ON role_ancestors.ancestor_id = role_users.role_id
  JOIN roles ON roles.id = role_ancestors.descendent_id AND roles.content_type = 'organization' AND roles.role_field = 'member_role'
  WHERE roles.object_id IN (${orgCondition})`;

/** An organization admin administers the users of the organization, except superusers. */
async function administers(ctx: RequestContext, tx: Queryable, user: Row): Promise<boolean> {
  if (isSuperuser(ctx)) return true;
  if (!ctx.user || user.is_superuser) return false;
  const me = ctx.user.id;
  const rows = await tx.query(`SELECT 1 WHERE $2::integer IN (${membersOfOrganizations(objectsWithRole('organization', ['admin_role'], '$1'))})`, [me, user.id]);
  return rows.length > 0;
}

const userAccess: AccessPolicy = {
  // Users see themselves and the members of the organizations they may read.
  visible: (ctx, alias, params) => {
    if (seesEverything(ctx)) return null;
    const me = params.add(ctx.user?.id ?? 0);
    return `(${alias}.id = ${me} OR ${alias}.id IN (${membersOfOrganizations(objectsWithRole('organization', ['read_role'], me))}))`;
  },
  canCreate: async (ctx, tx) => {
    if (isSuperuser(ctx)) return true;
    if (!ctx.user) return false;
    return (await tx.query(`SELECT 1 FROM (${objectsWithRole('organization', ['admin_role'], '$1')}) AS administered LIMIT 1`, [ctx.user.id])).length > 0;
  },
  canChange: (ctx, tx, row) => (ctx.user?.id === row.id ? true : administers(ctx, tx, row)),
  canDelete: (ctx, tx, row) => ctx.user?.id !== row.id && administers(ctx, tx, row),
  canAttach: isSuperuser,
};

/** Keeps the system_administrator and system_auditor roles in step with the user's flags. */
async function syncSystemRoles(tx: Queryable, user: Row): Promise<void> {
  for (const [flag, role] of [['is_superuser', 'system_administrator'], ['is_system_auditor', 'system_auditor']] as const) {
    if (user[flag]) {
      await tx.query(
        `INSERT INTO role_users (role_id, user_id) SELECT id, $1 FROM roles WHERE singleton_name = $2 ON CONFLICT DO NOTHING`,
        [user.id, role],
      );
    } else {
      await tx.query(`DELETE FROM role_users WHERE user_id = $1 AND role_id = (SELECT id FROM roles WHERE singleton_name = $2)`, [user.id, role]);
    }
  }
}

export const hashPassword = (password: string) => hash(password);

export const users = defineResource({
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
    tokens: userTokens,
    personal_tokens: userPersonalTokens,
  },
  access: userAccess,
  hooks: {
    async beforeWrite(_tx, ctx, values, existing) {
      for (const flag of ['is_superuser', 'is_system_auditor'] as const) {
        if (flag in values && values[flag] !== (existing?.[flag] ?? false) && !ctx.user?.isSuperuser) {
          throw new ApiError(403, { detail: `Only a system administrator may change ${flag}.` });
        }
      }
      if (typeof values.password === 'string') values.password = await hashPassword(values.password);
    },
    afterWrite: (tx, _ctx, row) => syncSystemRoles(tx, row),
  },
});
