import { hasObjectRole, objectsWithRole, seesEverything, type AccessPolicy } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import type { Queryable } from '../../db/database.ts';
import { organizationAdminsManage, organizationRecords } from '../organizations/organization-scoped-access.ts';

const refuse = () => false;

/**
 * Snapshots and drift are read by whoever reads their inventory; only the service writes them.
 * `acknowledge` needs the inventory's admin role.
 */
export const inventoryReaders: AccessPolicy = {
  visible: (ctx, alias, params) =>
    seesEverything(ctx) ? null : `${alias}.inventory_id IN (${objectsWithRole('inventory', ['read_role'], params.add(ctx.user?.id ?? 0))})`,
  canCreate: refuse,
  canChange: refuse,
  canDelete: refuse,
  canAttach: refuse,
};

export const mayAcknowledge = (ctx: RequestContext, tx: Queryable, inventoryId: number) => hasObjectRole(ctx, tx, 'inventory', inventoryId, 'admin_role');

/** Alert rules and alerts belong to an organization: its admins and auditors see them, its admins manage the rules. */
export const alertRuleAccess = organizationAdminsManage(['enable']);

export const alertAccess = organizationRecords;
