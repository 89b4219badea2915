/**
 * Makes an organization a tenant the way the database sees one (a `tenants` row and its usage row),
 * without the tenants API: for tests of what a tenant changes elsewhere (isolation, quotas).
 */
import type { TestApp } from './app.ts';

/** Flags the organization as a tenant root and answers the tenant's id. */
export async function makeTenant(t: TestApp, organization: number): Promise<number> {
  const [tenant] = await t.db.query<{ id: number }>('INSERT INTO tenants (organization_id) VALUES ($1) RETURNING id', [organization]);
  await t.db.query('INSERT INTO tenant_usage (tenant_id) VALUES ($1)', [tenant.id]);
  return tenant.id;
}
