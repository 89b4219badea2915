import { isSuperuser, type AccessPolicy } from '../../api/access.ts';
import { ref } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import type { Queryable } from '../../db/database.ts';
import type { TenantRow } from '../../db/tables.ts';
import { BRANDING_FIELDS, QUOTA_KINDS } from './tenant-values.ts';

export const TENANTS_URL = '/api/v2/tenants/';

/** Superusers only (docs/tenants.md): tenants are the service's own administration. */
const tenantAccess: AccessPolicy<TenantRow> = {
  visible: (ctx) => (isSuperuser(ctx) ? null : 'false'),
  canCreate: isSuperuser,
  canChange: isSuperuser,
  canDelete: isSuperuser,
  canAttach: () => false,
  actions: { recalculate: isSuperuser },
};

/** What a tenant shows of its organization and usage, read for a whole page at once. */
interface TenantFacts {
  name: string;
  description: string;
  concurrent_jobs: number;
  daily_launches: number;
  daily_date: string;
  hosts: number;
  storage_bytes: number;
  recalculated: Date | null;
}

const MB = 1024 * 1024;

async function tenantFacts(db: Queryable, rows: readonly TenantRow[]): Promise<Map<number, TenantFacts>> {
  const facts = await db.query<TenantFacts & { id: number }>(
    `SELECT t.id, o.name, o.description, coalesce(u.concurrent_jobs, 0) AS concurrent_jobs, coalesce(u.daily_launches, 0) AS daily_launches,
            to_char(coalesce(u.daily_date, (now() AT TIME ZONE 'UTC')::date), 'YYYY-MM-DD') AS daily_date, coalesce(u.hosts, 0) AS hosts,
            coalesce(u.storage_bytes, 0)::float8 AS storage_bytes, u.recalculated
     FROM tenants t JOIN organizations o ON o.id = t.organization_id LEFT JOIN tenant_usage u ON u.tenant_id = t.id
     WHERE t.id = ANY($1::integer[])`,
    [rows.map((row) => row.id)],
  );
  return new Map(facts.map((f) => [f.id, f]));
}

/**
 * A tenant root organization with its quotas, branding and usage (docs/tenants.md). Its endpoints
 * are its own rather than the framework's: provisioning makes an organization, an admin and a team
 * with it, its bodies nest quota and branding, and its 400 lists every bad field.
 */
export const tenants = defineResource<TenantRow>({
  name: 'tenant',
  table: 'tenants',
  label: 'Tenant List',
  description: 'Tenant root organizations: their quotas, branding and usage. Superusers only.',
  fields: {
    organization: ref('organization', { readOnly: true, helpText: 'The tenant root organization.' }),
    admin_user: ref('user', { readOnly: true, nullable: true, helpText: 'The admin user made by provisioning.' }),
    team: ref('team', { readOnly: true, nullable: true, helpText: 'The default team made by provisioning.' }),
  },
  summaryColumns: ['id'],
  access: tenantAccess,
  // Reached through its own endpoints only, which the API root lists (docs/tenants.md).
  topLevel: false,
  prepare: (db, rows) => tenantFacts(db, rows),
  decorate: (row, out, prepared) => {
    const facts = (prepared as Map<number, TenantFacts> | undefined)?.get(row.id);
    const url = `${TENANTS_URL}${row.id}/`;
    const { activity_stream: _none, ...related } = out.related;
    out.related = { ...related, recalculate: `${url}recalculate/`, quota_events: `/api/v2/tenant_quota_events/?tenant=${row.id}` };
    out.name = facts?.name ?? '';
    out.description = facts?.description ?? '';
    out.quota = Object.fromEntries(QUOTA_KINDS.map((kind) => [kind, row[kind]]));
    out.usage = {
      concurrent_jobs: facts?.concurrent_jobs ?? 0,
      daily_launches: facts?.daily_launches ?? 0,
      daily_date: facts?.daily_date ?? null,
      hosts: facts?.hosts ?? 0,
      storage_mb: Math.round(((facts?.storage_bytes ?? 0) / MB) * 100) / 100,
      storage_bytes: facts?.storage_bytes ?? 0,
      recalculated: facts?.recalculated instanceof Date ? facts.recalculated.toISOString() : (facts?.recalculated ?? null),
    };
    out.branding = Object.fromEntries(BRANDING_FIELDS.map((field) => [field, row[field]]));
  },
});
