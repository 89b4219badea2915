import { holdsRoleSomewhere, objectsWithRole, seesEverything, type AccessPolicy } from '../../api/access.ts';
import type { ResourceRow } from '../../db/database.ts';
import { administersOrganizations, isOrgAdmin } from './organization.resource.ts';

/** A row of an organization's own configuration (a drift alert rule, an event rule, an outbound webhook). */
type OrganizationOwnedRow = ResourceRow & { organization_id: number };

const refuse = () => false;

/** Objects of an organization that its admins and auditors see (rules, alerts, logs). */
export const organizationAdminsOrAuditors: AccessPolicy['visible'] = (ctx, alias, params) =>
  seesEverything(ctx) ? null : `${alias}.organization_id IN (${objectsWithRole('organization', ['admin_role', 'auditor_role'], params.add(ctx.user?.id ?? 0))})`;

/**
 * Configuration an organization's admins manage and its auditors read (drift alert rules, event
 * rules): `actions` are the routes' own (enable, webhook_key...), each for the organization's admins.
 */
export function organizationAdminsManage(actions: readonly string[]): AccessPolicy<OrganizationOwnedRow> {
  const byAdmin = (ctx: Parameters<typeof isOrgAdmin>[0], tx: Parameters<typeof isOrgAdmin>[1], row: OrganizationOwnedRow) => isOrgAdmin(ctx, tx, row.organization_id);
  return {
    visible: organizationAdminsOrAuditors,
    canCreate: (ctx, tx, values) =>
      typeof values.organization === 'number' ? isOrgAdmin(ctx, tx, values.organization) : holdsRoleSomewhere(ctx, tx, 'organization', 'admin_role'),
    canChange: administersOrganizations,
    canDelete: (ctx, tx, row) => byAdmin(ctx, tx, row),
    canAttach: refuse,
    actions: Object.fromEntries(actions.map((action) => [action, (ctx, tx, row) => byAdmin(ctx, tx, row)])),
  };
}

/** What only the service writes and an organization's admins and auditors read (alerts, event logs). */
export const organizationRecords: AccessPolicy = {
  visible: organizationAdminsOrAuditors,
  canCreate: refuse,
  canChange: refuse,
  canDelete: refuse,
  canAttach: refuse,
};
