import { hasObjectRole, hasObjectRoleOnRow, isSuperuser, objectsWithRole, seesEverything, type AccessPolicy } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { forbidden, ValidationError } from '../../api/errors.ts';
import type { Values } from '../../api/resource.ts';
import type { Queryable } from '../../db/database.ts';
import { assertCanUseCredential } from '../credentials/credential-use.ts';
import type { ExecutionEnvironmentRow } from '../../db/tables.ts';

const EE_ADMIN = 'execution_environment_admin_role';
/** Fields of a managed execution environment that nobody may change (only `pull` may be). */
const MANAGED_FIXED_FIELDS: Record<string, keyof ExecutionEnvironmentRow> = {
  name: 'name',
  description: 'description',
  organization: 'organization_id',
  image: 'image',
  credential: 'credential_id',
};

/** Organization admins and execution environment admins of the organization (admins hold the latter). */
const administersEnvironmentsOf = (ctx: RequestContext, tx: Queryable, organizationId: number) =>
  hasObjectRole(ctx, tx, 'organization', organizationId, EE_ADMIN);

async function administersSomeEnvironments(ctx: RequestContext, tx: Queryable): Promise<boolean> {
  if (!ctx.user) return false;
  const rows = await tx.query(`SELECT 1 FROM (${objectsWithRole('organization', [EE_ADMIN], '$1')}) AS administered LIMIT 1`, [ctx.user.id]);
  return rows.length > 0;
}

/** Refuses, whoever asks, to change anything but `pull` of a managed execution environment (as AWX). */
function refuseManagedChange(row: ExecutionEnvironmentRow, values: Values): void {
  if (!row.managed) return;
  for (const [field, column] of Object.entries(MANAGED_FIXED_FIELDS)) {
    if (field in values && values[field] !== row[column]) {
      throw forbidden("Only the 'pull' field can be edited for managed execution environments.");
    }
  }
}

/**
 * As AWX: everyone sees the global execution environments, and those of the organizations he
 * reads; organization admins and execution environment admins manage their organization's; only
 * superusers manage the global ones. Managed ones are never deleted.
 */
export const executionEnvironmentAccess: AccessPolicy<ExecutionEnvironmentRow> = {
  visible: (ctx, alias, params) => {
    if (seesEverything(ctx)) return null;
    const readable = objectsWithRole('organization', ['read_role'], params.add(ctx.user?.id ?? 0));
    return `(${alias}.organization_id IS NULL OR ${alias}.organization_id IN (${readable}))`;
  },
  canCreate: (ctx, tx, values) => {
    if (isSuperuser(ctx)) return true;
    // No body yet (OPTIONS): whether the caller may create one anywhere.
    if (!('organization' in values)) return administersSomeEnvironments(ctx, tx);
    return typeof values.organization === 'number' && administersEnvironmentsOf(ctx, tx, values.organization);
  },
  canChange: async (ctx, tx, row, values) => {
    refuseManagedChange(row, values);
    if (isSuperuser(ctx)) return true;
    if (row.organization_id === null || !(await administersEnvironmentsOf(ctx, tx, row.organization_id))) return false;
    if (!('organization' in values) || values.organization === row.organization_id) return true;
    // Making it global takes a superuser; moving it is refused below, after permission.
    return typeof values.organization === 'number' && administersEnvironmentsOf(ctx, tx, values.organization);
  },
  canDelete: async (ctx, tx, row) => {
    if (row.managed) return false;
    if (isSuperuser(ctx)) return true;
    return row.organization_id !== null && administersEnvironmentsOf(ctx, tx, row.organization_id);
  },
  canAttach: isSuperuser,
  // As AWX (can_add with the environment as reference): a global one is copied by superusers only.
  capabilities: {
    copy: (ctx, tx, row, page) => isSuperuser(ctx) || (row.organization_id !== null && hasObjectRoleOnRow(ctx, tx, 'organization', EE_ADMIN, row, page, 'organization_id')),
  },
};

/**
 * The registry credential of an execution environment: it must exist and be usable by the caller
 * (use_role, 403 otherwise), and be of kind `registry` (400 with AWX's message).
 */
export async function checkRegistryCredential(ctx: RequestContext, tx: Queryable, credentialId: number): Promise<void> {
  await assertCanUseCredential(ctx, tx, credentialId, 'credential');
  const [credential] = await tx.query<{ kind: string }>(
    `SELECT credential_types.kind FROM credentials JOIN credential_types ON credential_types.id = credentials.credential_type_id
     WHERE credentials.id = $1`,
    [credentialId],
  );
  if (credential?.kind !== 'registry') {
    throw ValidationError.field('credential', 'Only Container Registry credentials can be associated with an Execution Environment');
  }
}

/** Checks a write before it is stored: the organization stays, and the credential is a usable registry credential. */
export async function checkExecutionEnvironment(tx: Queryable, ctx: RequestContext, values: Values, existing: ExecutionEnvironmentRow | null): Promise<void> {
  if (existing && typeof values.organization === 'number' && values.organization !== existing.organization_id) {
    throw ValidationError.field('organization', 'Cannot change the organization of an execution environment');
  }
  if (typeof values.credential === 'number' && values.credential !== existing?.credential_id) {
    await checkRegistryCredential(ctx, tx, values.credential);
  }
}
