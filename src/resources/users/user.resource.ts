import { hash } from '@node-rs/argon2';
import { isSuperuser, objectsWithRole, seesEverything, type AccessPolicy } from '../../api/access.ts';
import { ApiError } from '../../api/errors.ts';
import { boolean, datetime, email, secret, text } from '../../api/fields.ts';
import { roleHeldOn } from '../../api/relations.ts';
import { defineResource } from '../../api/resource.ts';
import type { Queryable, Row } from '../../db/database.ts';
import { ORGANIZATION_VIEW_ROLES } from '../organizations/organization.resource.ts';

const userAccess: AccessPolicy = {
  visible: (ctx, alias, params) => {
    if (seesEverything(ctx)) return null;
    const me = params.add(ctx.user?.id ?? 0);
    // Users see themselves and the members of their organizations.
    return `(${alias}.id = ${me} OR ${alias}.id IN (
      SELECT role_users.user_id FROM role_users JOIN roles ON roles.id = role_users.role_id
      WHERE roles.content_type = 'organization' AND roles.object_id IN (${objectsWithRole('organization', ORGANIZATION_VIEW_ROLES, me)})))`;
  },
  canCreate: isSuperuser,
  canChange: (ctx, _tx, row) => isSuperuser(ctx) || ctx.user?.id === row.id,
  canDelete: (ctx, _tx, row) => isSuperuser(ctx) && ctx.user?.id !== row.id,
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
