/** What happens around a credential write: owners, type changes, inputs validation and encryption. */
import type { RequestContext } from '../../api/context.ts';
import { ApiError, ValidationError } from '../../api/errors.ts';
import type { Values } from '../../api/resource.ts';
import type { Queryable } from '../../db/database.ts';
import type { CredentialRow, TeamRow } from '../../db/tables.ts';
import { auditGrant, grantToUser, loadRole } from '../../rbac/grants.ts';
import { addParent, roleId } from '../../rbac/graph.ts';
import { displayInputs, prepareInputs, type Inputs } from './credential-inputs.ts';
import { loadCredentialType } from './credential-use.ts';

/** Columns of other objects that use a credential: while any is set, its type may not change. */
const USES = [
  ['projects', 'credential_id'],
  ['inventory_sources', 'credential_id'],
  ['execution_environments', 'credential_id'],
  ['unified_jobs', 'credential_id'],
] as const;

export async function credentialInUse(tx: Queryable, credentialId: number): Promise<boolean> {
  const union = USES.map(([table, column]) => `SELECT 1 FROM ${table} WHERE ${column} = $1`).join(' UNION ALL ');
  return (await tx.query<{ used: boolean }>(`SELECT EXISTS (${union}) AS used`, [credentialId]))[0].used === true;
}

/** The owners named on create (`user`, `team`: write-only), between beforeWrite and afterWrite of one insert. */
const pendingOwners = new WeakMap<Queryable, { user?: number; team?: number }>();

async function takeOwners(tx: Queryable, values: Values): Promise<void> {
  const owners = { user: values.user as number | undefined, team: values.team as number | undefined };
  if (typeof owners.user !== 'number' && typeof owners.team !== 'number' && typeof values.organization !== 'number') {
    throw new ApiError(400, { detail: "Missing 'user', 'team', or 'organization'." });
  }
  if (typeof owners.team === 'number') {
    // A team's credential belongs to the team's organization.
    const [team] = await tx.query<Pick<TeamRow, 'organization_id'>>('SELECT organization_id FROM teams WHERE id = $1', [owners.team]);
    values.organization = team.organization_id;
  }
  pendingOwners.set(tx, owners);
}

async function checkUniqueName(tx: Queryable, values: Values, existing: CredentialRow | null): Promise<void> {
  const organization = 'organization' in values ? values.organization : existing?.organization_id;
  if (organization === null || organization === undefined) return;
  const rows = await tx.query('SELECT 1 FROM credentials WHERE organization_id = $1 AND name = $2 AND credential_type_id = $3 AND id <> $4 LIMIT 1', [
    organization,
    values.name ?? existing?.name,
    values.credential_type ?? existing?.credential_type_id,
    existing?.id ?? 0,
  ]);
  if (rows.length) throw new ValidationError({ __all__: ['Credential with this Organization, Name and Credential type already exists.'] });
}

export async function beforeCredentialWrite(tx: Queryable, _ctx: RequestContext, values: Values, existing: CredentialRow | null): Promise<void> {
  if (!existing) await takeOwners(tx, values);
  // Write-only, and only on create: they are roles, not columns.
  delete values.user;
  delete values.team;
  const typeChanged = existing !== null && values.credential_type !== undefined && values.credential_type !== existing.credential_type_id;
  if (typeChanged && (await credentialInUse(tx, existing.id))) {
    throw ValidationError.field(
      'credential_type',
      'You cannot change the credential type of the credential, as it may break the functionality of the resources using it.',
    );
  }
  if (!existing || 'inputs' in values || typeChanged) {
    const type = await loadCredentialType(tx, (values.credential_type ?? existing!.credential_type_id) as number);
    // Without new inputs, the stored ones must suit the new type: they are checked as if sent back as read.
    const incoming = ('inputs' in values ? values.inputs : displayInputs(existing!.inputs)) as Inputs;
    values.inputs = prepareInputs(type, incoming ?? {}, existing ? (existing.inputs as Inputs) : null);
  }
  await checkUniqueName(tx, values, existing);
}

/** As AWX: the user named on create administers the credential; a team's admins administer it and its members use it. */
export async function afterCredentialWrite(tx: Queryable, ctx: RequestContext, row: CredentialRow, existing: CredentialRow | null): Promise<void> {
  if (existing) return;
  const owners = pendingOwners.get(tx);
  pendingOwners.delete(tx);
  const admin = await roleId(tx, 'credential', row.id, 'admin_role');
  if (owners?.user !== undefined && admin !== null) await grantToUser(tx, ctx, await loadRole(tx, admin), owners.user, false);
  if (owners?.team !== undefined) {
    for (const [own, teams] of [['admin_role', 'admin_role'], ['use_role', 'member_role']] as const) {
      const role = await roleId(tx, 'credential', row.id, own);
      const parent = await roleId(tx, 'team', owners.team, teams);
      if (role === null || parent === null) continue;
      await addParent(tx, role, parent);
      await auditGrant(tx, ctx, await loadRole(tx, role), { type: 'team', id: owners.team }, false);
    }
  }
}
