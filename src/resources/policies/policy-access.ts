/**
 * Who manages launch policies: superusers the global ones (no organization), an organization's
 * admins its own; its auditors read them, and global policies are read by anyone who administers
 * or audits an organization (they apply to it). Decisions are read as the organization's records.
 */
import { isSuperuser, holdsRoleSomewhere, objectsWithRole, seesEverything, type AccessPolicy } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import type { Queryable, Row } from '../../db/database.ts';
import { isOrgAdmin } from '../organizations/organization.resource.ts';

/** Administers a policy of `organization` (null: a global one). */
const administers = (ctx: RequestContext, tx: Queryable, organization: unknown) =>
  typeof organization === 'number' ? isOrgAdmin(ctx, tx, organization) : isSuperuser(ctx);

const administersRow = (ctx: RequestContext, tx: Queryable, row: Row) => administers(ctx, tx, row.organization_id);

export const policyAccess: AccessPolicy = {
  visible: (ctx, alias, params) => {
    if (seesEverything(ctx)) return null;
    const organizations = objectsWithRole('organization', ['admin_role', 'auditor_role'], params.add(ctx.user?.id ?? 0));
    return `(${alias}.organization_id IN (${organizations}) OR (${alias}.organization_id IS NULL AND EXISTS (${organizations})))`;
  },
  // OPTIONS asks with no values: whether the caller may create a policy somewhere.
  canCreate: (ctx, tx, values) =>
    values.organization === undefined ? holdsRoleSomewhere(ctx, tx, 'organization', 'admin_role') : administers(ctx, tx, values.organization),
  canChange: async (ctx, tx, row, values) =>
    (await administersRow(ctx, tx, row)) && (values.organization === undefined || values.organization === row.organization_id || administers(ctx, tx, values.organization)),
  canDelete: administersRow,
  canAttach: () => false,
  actions: { enable: administersRow, test: administersRow },
};
