import { objectsWithRole, seesEverything, type AccessPolicy } from '../../api/access.ts';
import { choice, datetime, integer, ref, text } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import { createdSince } from '../../api/since-filter.ts';
import type { TenantQuotaEventRow } from '../../db/tables.ts';
import { QUOTA_KINDS } from './tenant-values.ts';

const readOnly = { readOnly: true } as const;
const refuse = () => false;

/**
 * Superusers and system auditors see every decision; an organization's admins and auditors those
 * of the tenant whose root it is; anyone else none.
 */
const quotaEventAccess: AccessPolicy = {
  visible: (ctx, alias, params) =>
    seesEverything(ctx) ? null : `${alias}.organization_id IN (${objectsWithRole('organization', ['admin_role', 'auditor_role'], params.add(ctx.user?.id ?? 0))})`,
  canCreate: refuse,
  canChange: refuse,
  canDelete: refuse,
  canAttach: refuse,
};

/** One quota decision (docs/tenants.md#quota-events): written by the quota gate only, read here. */
export const tenantQuotaEvents = defineResource<TenantQuotaEventRow>({
  name: 'tenant_quota_event',
  table: 'tenant_quota_events',
  label: 'Tenant Quota Event List',
  description: 'Each limited quota checked at a launch or a host creation: allowed or denied, with the limit and the usage it was measured against.',
  fields: {
    tenant: ref('tenant', readOnly),
    organization: ref('organization', readOnly),
    quota_kind: choice([...QUOTA_KINDS], readOnly),
    decision: choice(['allow', 'deny'], readOnly),
    limit: integer({ ...readOnly, column: 'quota_limit', helpText: 'The quota at the decision.' }),
    usage: integer({ ...readOnly, helpText: 'What the tenant used at the decision, before the launch.' }),
    action: text({ ...readOnly, helpText: 'What asked: a launch (its kind and launch type) or a host creation.' }),
    unified_job: ref('unified_job', { ...readOnly, nullable: true, helpText: 'The run launched; a denied launch left none.' }),
    user: ref('user', { ...readOnly, nullable: true }),
    message: text(readOnly),
    created: datetime({ ...readOnly, nullable: false }),
  },
  untracked: true,
  operations: { create: false, update: false, delete: false },
  search: ['message', 'action'],
  ordering: '-id',
  summaryColumns: ['id', 'quota_kind', 'decision'],
  access: quotaEventAccess,
  queryFilters: {
    since: createdSince,
  },
});
