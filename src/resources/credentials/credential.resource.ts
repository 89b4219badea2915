import { boolean, FieldProblem, json, ref, text, type Field } from '../../api/fields.ts';
import { reverse, type Relation } from '../../api/relations.ts';
import { defineResource } from '../../api/resource.ts';
import type { Queryable } from '../../db/database.ts';
import type { CredentialRow, CredentialTypeRow } from '../../db/tables.ts';
import { objectRoles } from '../../rbac/relations.ts';
import { credentialAccess } from './credential-access.ts';
import { afterCredentialWrite, beforeCredentialWrite } from './credential-hooks.ts';
import { displayInputs } from './credential-inputs.ts';

/** The inputs: validated against the type on write; secrets stored encrypted and read back as "$encrypted$". */
const inputsField: Field = {
  ...json({ helpText: 'Enter inputs using either JSON or YAML syntax. Refer to the documentation for example syntax.' }),
  // Never filtered or ordered on, and "hidden" in the activity stream.
  secret: true,
  parse: (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new FieldProblem('Must be a JSON object of inputs.');
    return value;
  },
  serialize: displayInputs,
};

/**
 * `user` and `team` name an owner on create only (AWX's write-only fields): they become roles,
 * never columns. Declared secret so that nothing filters, orders or records them as columns.
 */
const ownerField = (resource: 'user' | 'team', helpText: string): Field => ({ ...ref(resource, { helpText }), secret: true, filterable: false });

/** Users given the admin_role of the credential themselves. */
const ownerUsers: Relation = {
  target: 'user',
  from: `role_users JOIN roles ON roles.id = role_users.role_id AND roles.content_type = 'credential' AND roles.role_field = 'admin_role'`,
  parentColumn: 'roles.object_id',
  targetColumn: 'role_users.user_id',
  attachable: false,
};

/** Teams one of whose roles is a parent of the credential's admin_role. */
const ownerTeams: Relation = {
  target: 'team',
  from: `role_parents JOIN roles AS owned ON owned.id = role_parents.role_id AND owned.content_type = 'credential' AND owned.role_field = 'admin_role'
    JOIN roles AS team_role ON team_role.id = role_parents.parent_id AND team_role.content_type = 'team'`,
  parentColumn: 'owned.object_id',
  targetColumn: 'team_role.object_id',
  attachable: false,
};

/** The types of a page of credentials, for the fields computed from them. */
type TypeSummary = Pick<CredentialTypeRow, 'id' | 'kind' | 'namespace'>;

async function loadTypes(db: Queryable, rows: readonly CredentialRow[]): Promise<Map<number, TypeSummary>> {
  const ids = [...new Set(rows.map((r) => r.credential_type_id))];
  const types = await db.query<TypeSummary>('SELECT id, kind, namespace FROM credential_types WHERE id = ANY($1::integer[])', [ids]);
  return new Map(types.map((t) => [t.id, t]));
}

export const credentials = defineResource<CredentialRow>({
  name: 'credential',
  table: 'credentials',
  label: 'Credential List',
  description: 'Credentials hold what runs need to reach machines, source control and clouds; their secrets are encrypted at rest.',
  fields: {
    name: text({ required: true, maxLength: 512, allowBlank: false, helpText: 'Name of this credential.' }),
    description: text({ helpText: 'Optional description of this credential.' }),
    organization: ref('organization', { helpText: 'Inherit permissions from organization roles. If provided on creation, do not give either user or team.' }),
    credential_type: ref('credential_type', {
      required: true,
      helpText: 'Specify the type of credential you want to create. Refer to the documentation for details on each type.',
    }),
    managed: boolean({ readOnly: true }),
    inputs: inputsField,
    user: ownerField('user', 'Write-only field used to add user to owner role. If provided, do not give either team or organization. Only valid for creation.'),
    team: ownerField('team', 'Write-only field used to add team to owner role. If provided, do not give either user or organization. Only valid for creation.'),
  },
  namedUrl: ['name', 'credential_type', 'organization'],
  search: ['name', 'description'],
  ordering: 'name',
  summaryColumns: ['id', 'name', 'description', 'credential_type_id'],
  related: {
    owner_users: ownerUsers,
    owner_teams: ownerTeams,
    object_roles: objectRoles('credential'),
    input_sources: reverse('credential_input_source', 'credential_input_sources', 'target_credential_id', 'target_credential'),
  },
  roles: {
    admin_role: { name: 'Admin', description: 'Can manage all aspects of the credential', parents: ['organization.credential_admin_role'] },
    use_role: { name: 'Use', description: 'Can use the credential in a job template', parents: ['admin_role'] },
    read_role: { name: 'Read', description: 'May view settings for the credential', parents: ['use_role', 'organization.auditor_role'] },
  },
  access: credentialAccess,
  hooks: { beforeWrite: beforeCredentialWrite, afterWrite: afterCredentialWrite },
  prepare: loadTypes,
  decorate(row, out, prepared) {
    // As AWX: `kind` is the type's namespace; `cloud` and `kubernetes` come from the type's kind.
    const type = (prepared as Map<number, TypeSummary> | undefined)?.get(row.credential_type_id);
    out.kind = type?.namespace ?? null;
    out.cloud = type?.kind === 'cloud';
    out.kubernetes = type?.kind === 'kubernetes';
    out.related.copy = `${credentials.detailPath(row.id)}copy/`;
    delete out.user;
    delete out.team;
  },
});
