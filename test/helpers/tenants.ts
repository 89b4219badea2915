// Tenants made through POST /api/v2/tenants/ as the superuser (docs/tenants.md).
import type { TestApp } from './app.ts';
import { unique } from './factories.ts';

export interface TenantFields {
  /** `tenant-<n>` unless given. */
  name?: string;
  quota?: Record<string, number | null>;
  branding?: Record<string, string>;
  /** `<name>-admin` (made safe for a username) unless given. */
  admin_username?: string;
  admin_password?: string;
  [field: string]: unknown;
}

/**
 * Provisions a tenant and answers its body (with `admin_password`, generated unless given), and
 * `admin`, credentials to send requests as its admin user.
 */
export async function provisionTenant(t: TestApp, fields: TenantFields = {}): Promise<any> {
  const name = fields.name ?? unique('tenant');
  const adminUsername = fields.admin_username ?? `${name.toLowerCase().replace(/[^\w.@+-]+/g, '_')}-admin`;
  const body = { admin_email: `${adminUsername}@example.com`, ...fields, name, admin_username: adminUsername };
  const res = await t.post('/api/v2/tenants/', body);
  if (res.status !== 201) throw new Error(`provisioning tenant ${name}: expected 201, got ${res.status}: ${res.text}`);
  const password = fields.admin_password ?? res.body.admin_password;
  return { ...res.body, admin: { id: res.body.admin_user, username: adminUsername, password } };
}
