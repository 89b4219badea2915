import { holdsRoleSomewhere, objectsWithRole, seesEverything, type AccessPolicy } from '../../api/access.ts';
import { administersOrganizations, isOrgAdmin } from './organization.resource.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const refuse = () => false;

/** Objects of an organization that its admins and auditors see (rules, alerts, logs). */
export const organizationAdminsOrAuditors: AccessPolicy<AnyRow>['visible'] = (ctx, alias, params) =>
  seesEverything(ctx) ? null : `${alias}.organization_id IN (${objectsWithRole('organization', ['admin_role', 'auditor_role'], params.add(ctx.user?.id ?? 0))})`;

/**
 * Configuration an organization's admins manage and its auditors read (drift alert rules, event
 * rules): `actions` are the routes' own (enable, webhook_key...), each for the organization's admins.
 */
export function organizationAdminsManage(actions: readonly string[]): AccessPolicy<AnyRow> {
  const byAdmin = (ctx: Parameters<typeof isOrgAdmin>[0], tx: Parameters<typeof isOrgAdmin>[1], row: { organization_id: number }) => isOrgAdmin(ctx, tx, row.organization_id);
  return {
    visible: organizationAdminsOrAuditors,
    canCreate: (ctx, tx, values) =>
      typeof values.organization === 'number' ? isOrgAdmin(ctx, tx, values.organization) : holdsRoleSomewhere(ctx, tx, 'organization', 'admin_role'),
    canChange: administersOrganizations,
    canDelete: (ctx, tx, row) => byAdmin(ctx, tx, row as { organization_id: number }),
    canAttach: refuse,
    actions: Object.fromEntries(actions.map((action) => [action, (ctx, tx, row) => byAdmin(ctx, tx, row as { organization_id: number })])),
  };
}

/** What only the service writes and an organization's admins and auditors read (alerts, event logs). */
export const organizationRecords: AccessPolicy<AnyRow> = {
  visible: organizationAdminsOrAuditors,
  canCreate: refuse,
  canChange: refuse,
  canDelete: refuse,
  canAttach: refuse,
};
