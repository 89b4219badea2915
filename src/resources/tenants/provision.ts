/**
 * Provisioning a tenant (docs/tenants.md#provisioning): the whole body is read first and every
 * problem answered in one 400; then one transaction makes the organization, its admin (member and
 * admin of it), the team "<name> Default Team", the tenant and its usage row. Nothing is left when
 * any step fails.
 */
import { randomBytes } from 'node:crypto';
import { recordActivity } from '../../activity/record.ts';
import type { RequestContext } from '../../api/context.ts';
import { associate, createObject, parseBody } from '../../api/crud.ts';
import type { Field } from '../../api/fields.ts';
import { readField } from '../../api/read-field.ts';
import type { Database, Queryable } from '../../db/database.ts';
import type { OrganizationRow, TeamRow, TenantRow, UserRow } from '../../db/tables.ts';
import { asBodyRefusal, bodyRefused } from './tenant-errors.ts';
import { readBranding, readQuota, type BodyProblem, type BrandingField, type QuotaKind } from './tenant-values.ts';

const TEAM_SUFFIX = ' Default Team';
const MAX_TEAM_NAME = 512;

/** What a valid body provisions. */
export interface Provisioning {
  name: string;
  description: string;
  adminUsername: string;
  adminEmail: string;
  adminPassword: string;
  /** The password was made here: answered once, in the create response. */
  generatedPassword: boolean;
  quota: Partial<Record<QuotaKind, number | null>>;
  branding: Partial<Record<BrandingField, string>>;
}

/** The body's value for a field as a declaration reads it, or its problem under the body's name. */
function readDeclared(field: Field, body: Record<string, unknown>, key: string, problems: BodyProblem[], required: boolean): string {
  if (!(key in body) || body[key] === undefined) {
    if (required) problems.push({ field: key, message: 'This field is required.' });
    return '';
  }
  const reading = readField(field, body[key], null);
  if ('problem' in reading) {
    problems.push({ field: key, message: reading.problem });
    return '';
  }
  const value = 'value' in reading ? String(reading.value ?? '') : '';
  if (required && value.trim() === '') problems.push({ field: key, message: 'This field may not be blank.' });
  return value;
}

/** Whether another tenant than `except` has this custom domain. */
export async function domainTaken(db: Queryable, domain: string, except: number | null): Promise<boolean> {
  return (await db.query('SELECT 1 FROM tenants WHERE custom_domain = $1 AND id IS DISTINCT FROM $2', [domain, except])).length > 0;
}

/** Reads a provisioning body, checking names against what exists; throws the 400 naming every bad field. */
export async function readProvisioning(db: Queryable, ctx: RequestContext, body: Record<string, unknown>): Promise<Provisioning> {
  const { resources } = ctx.service;
  const organization = resources.get('organization').fields;
  const user = resources.get('user').fields;
  const problems: BodyProblem[] = [];
  const name = readDeclared(organization.name, body, 'name', problems, true);
  const description = readDeclared(organization.description, body, 'description', problems, false);
  const adminUsername = readDeclared(user.username, body, 'admin_username', problems, true);
  const adminEmail = readDeclared(user.email, body, 'admin_email', problems, true);
  const given = body.admin_password !== undefined && body.admin_password !== null;
  const adminPassword = given ? readDeclared(user.password, body, 'admin_password', problems, true) : randomBytes(18).toString('base64url');
  const quota = readQuota(body.quota, problems);
  const branding = readBranding(body.branding, problems);

  if (name && name.length + TEAM_SUFFIX.length > MAX_TEAM_NAME) {
    problems.push({ field: 'name', message: `Ensure this field has no more than ${MAX_TEAM_NAME - TEAM_SUFFIX.length} characters (the default team is named after it).` });
  } else if (name && (await db.query('SELECT 1 FROM organizations WHERE name = $1', [name])).length) {
    problems.push({ field: 'name', message: 'An organization with this name already exists.' });
  }
  if (adminUsername && (await db.query('SELECT 1 FROM users WHERE username = $1', [adminUsername])).length) {
    problems.push({ field: 'admin_username', message: 'A user with that username already exists.' });
  }
  if (branding.custom_domain && (await domainTaken(db, branding.custom_domain, null))) {
    problems.push({ field: 'branding.custom_domain', message: 'Another tenant already uses this domain.' });
  }
  if (problems.length) throw bodyRefused(problems);
  return { name, description, adminUsername, adminEmail, adminPassword, generatedPassword: !given, quota, branding };
}

/** How the fields of what provisioning creates are named in its body, for a refusal met while writing. */
const BODY_NAMES = { name: 'name', description: 'description', username: 'admin_username', email: 'admin_email', password: 'admin_password' };

/** Every column of a tenant the activity stream records. */
export function tenantSnapshot(row: TenantRow): Record<string, unknown> {
  const { id: _id, created: _c, modified: _m, created_by_id: _cb, modified_by_id: _mb, ...shown } = row;
  return shown;
}

/** Creates everything a tenant is made of in one transaction and answers the tenant's row. */
export async function provisionTenant(db: Database, ctx: RequestContext, p: Provisioning): Promise<TenantRow> {
  const { resources } = ctx.service;
  const organizations = resources.get('organization');
  const users = resources.get('user');
  const teams = resources.get('team');
  try {
    return await db.transaction(async (tx) => {
      const org = await createObject<OrganizationRow>(tx, ctx, organizations, parseBody(organizations, { name: p.name, description: p.description }, 'create', null));
      const admin = await createObject<UserRow>(
        tx, ctx, users, parseBody(users, { username: p.adminUsername, email: p.adminEmail, password: p.adminPassword }, 'create', null),
      );
      await associate(tx, ctx, organizations, org, 'users', admin.id, false);
      await associate(tx, ctx, organizations, org, 'admins', admin.id, false);
      const team = await createObject<TeamRow>(tx, ctx, teams, parseBody(teams, { name: `${p.name}${TEAM_SUFFIX}`, organization: org.id }, 'create', null));
      const values: Record<string, unknown> = { ...p.quota, ...p.branding, organization_id: org.id, admin_user_id: admin.id, team_id: team.id };
      const columns = Object.keys(values);
      const actor = ctx.user && ctx.user.id > 0 ? ctx.user.id : null;
      const [tenant] = await tx.query<TenantRow>(
        `INSERT INTO tenants (${columns.join(', ')}, created_by_id, modified_by_id)
         VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')}, $${columns.length + 1}, $${columns.length + 1}) RETURNING *`,
        [...Object.values(values), actor],
      );
      await tx.query('INSERT INTO tenant_usage (tenant_id) VALUES ($1)', [tenant.id]);
      await recordActivity(tx, ctx, { operation: 'create', object1: 'tenant', object1Id: tenant.id, changes: tenantSnapshot(tenant) });
      return tenant;
    });
  } catch (err) {
    throw asBodyRefusal(err, BODY_NAMES);
  }
}
