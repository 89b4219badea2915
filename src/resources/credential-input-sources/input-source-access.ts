/**
 * AWX's CredentialInputSourceAccess: an input source is seen by those who see its target
 * credential; made and changed by admins of the target who may use the source; deleted by admins
 * of the target.
 */
import { hasObjectRole, isSuperuser, objectsWithRole, seesEverything, type AccessPolicy } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import type { Values } from '../../api/resource.ts';
import type { Queryable } from '../../db/database.ts';
import type { CredentialInputSourceRow } from '../../db/tables.ts';

const administers = (ctx: RequestContext, tx: Queryable, id: unknown) => typeof id === 'number' && hasObjectRole(ctx, tx, 'credential', id, 'admin_role');
const uses = (ctx: RequestContext, tx: Queryable, id: unknown) => typeof id === 'number' && hasObjectRole(ctx, tx, 'credential', id, 'use_role');

async function mayCreate(ctx: RequestContext, tx: Queryable, values: Values): Promise<boolean> {
  if (isSuperuser(ctx)) return true;
  if (!ctx.user) return false;
  // No body (OPTIONS): anyone who may administer a credential may link one.
  if (!Object.keys(values).length) return true;
  return (await administers(ctx, tx, values.target_credential)) && (await uses(ctx, tx, values.source_credential));
}

export const inputSourceAccess: AccessPolicy<CredentialInputSourceRow> = {
  visible: (ctx, alias, params) =>
    seesEverything(ctx) ? null : `${alias}.target_credential_id IN (${objectsWithRole('credential', ['read_role'], params.add(ctx.user?.id ?? 0))})`,
  canCreate: mayCreate,
  canChange: async (ctx, tx, row, values) => {
    if (isSuperuser(ctx)) return true;
    if (!(await administers(ctx, tx, row.target_credential_id)) || !(await uses(ctx, tx, row.source_credential_id))) return false;
    if ('target_credential' in values && !(await administers(ctx, tx, values.target_credential))) return false;
    return !('source_credential' in values) || uses(ctx, tx, values.source_credential);
  },
  canDelete: (ctx, tx, row) => administers(ctx, tx, row.target_credential_id),
  canAttach: () => false,
  // AWX's serializer shows only delete (show_capabilities = ['delete']).
  capabilities: { edit: false },
};
