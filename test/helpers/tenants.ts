/** Tenants for tests: provisioned through the API as a superuser. */
import assert from 'node:assert/strict';
import type { TestApp } from './app.ts';

let made = 0;

export interface TenantFields {
  name?: string;
  description?: string;
  admin_username?: string;
  admin_email?: string;
  admin_password?: string;
  quota?: Record<string, number | null>;
  branding?: Record<string, string>;
}

/** A tenant (its organization, admin user and team), with defaults a test overrides field by field. */
export async function newTenant(t: TestApp, fields: TenantFields = {}) {
  made += 1;
  const body = { name: `Tenant ${made}`, admin_username: `tenant-admin-${made}`, admin_email: `tenant-admin-${made}@example.com`, ...fields };
  const res = await t.post('/api/v2/tenants/', body);
  assert.equal(res.status, 201, res.text);
  return res.body;
}
