/**
 * The tenant boundary (docs/tenants.md, "Isolation"): objects of a tenant (an organization with a
 * row in `tenants`) are combined only with objects of the same tenant or with global ones (no
 * organization). Objects of organizations that are no tenant mix as AWX lets them. Every write that
 * sets a related field, every attach to a related list and every launch prompt asks here, so the
 * rule lives in one place; plain RBAC keeps tenants from seeing each other's objects.
 */
import type { Queryable, ResourceRow } from '../db/database.ts';
import { objectsWithRole, rolesOfUser } from './access.ts';
import { forbidden, ValidationError, type FieldErrors } from './errors.ts';
import type { Resource, Values } from './resource.ts';
import { ident } from './sql.ts';

export const ACROSS_TENANTS = 'Objects cannot move into, out of or between tenants.';

/** The message naming a related object of another tenant: "Inventory belongs to another tenant." */
export const foreignMessage = (noun: string) => `${noun.charAt(0).toUpperCase()}${noun.slice(1)} belongs to another tenant.`;

/**
 * Objects whose organization is their parent's (AWX keeps none of their own), by resource name:
 * the SQL answering the organization of object $1.
 */
const OWNER_THROUGH_PARENT: Record<string, string> = {
  host: 'SELECT i.organization_id AS org FROM hosts x JOIN inventories i ON i.id = x.inventory_id WHERE x.id = $1',
  group: 'SELECT i.organization_id AS org FROM groups x JOIN inventories i ON i.id = x.inventory_id WHERE x.id = $1',
  inventory_source: 'SELECT i.organization_id AS org FROM inventory_sources x JOIN inventories i ON i.id = x.inventory_id WHERE x.id = $1',
  workflow_job_template_node: 'SELECT w.organization_id AS org FROM workflow_job_template_nodes x JOIN workflow_job_templates w ON w.id = x.workflow_job_template_id WHERE x.id = $1',
  schedule: 'SELECT u.organization_id AS org FROM schedules x JOIN unified_job_templates u ON u.id = x.unified_job_template_id WHERE x.id = $1',
  credential_input_source: 'SELECT c.organization_id AS org FROM credential_input_sources x JOIN credentials c ON c.id = x.target_credential_id WHERE x.id = $1',
  // An approval template belongs to the workflow whose node runs it.
  workflow_approval_template: `SELECT w.organization_id AS org FROM workflow_job_template_nodes n
    JOIN workflow_job_templates w ON w.id = n.workflow_job_template_id WHERE n.unified_job_template_id = $1 LIMIT 1`,
  unified_job_template: `SELECT COALESCE(u.organization_id, (SELECT w.organization_id FROM workflow_job_template_nodes n
    JOIN workflow_job_templates w ON w.id = n.workflow_job_template_id WHERE n.unified_job_template_id = u.id LIMIT 1)) AS org
    FROM unified_job_templates u WHERE u.id = $1`,
};

/**
 * The fields of a write naming the object's owner, first given first: a job template is its
 * project's organization's, a host its inventory's... Others name their organization, if any.
 */
const OWNER_FIELDS: Record<string, readonly string[]> = {
  host: ['inventory'],
  group: ['inventory'],
  inventory_source: ['inventory'],
  job_template: ['project'],
  // An input source is its target credential's.
  credential_input_source: ['target_credential'],
  // A credential given to a team is the team's organization's, whatever organization the body names (a user's own has none).
  credential: ['team', 'organization'],
  workflow_job_template_node: ['workflow_job_template'],
  schedule: ['unified_job_template'],
  ad_hoc_command: ['inventory'],
  // A token is its user's; the application it is of may be a tenant's.
  o_auth2_access_token: ['application'],
};

function ownerFieldsOf(resource: Resource): readonly string[] {
  if (OWNER_FIELDS[resource.name]) return OWNER_FIELDS[resource.name];
  const organization = resource.fields.organization;
  return organization?.ref === 'organization' && !organization.readOnly ? ['organization'] : [];
}

/** Resources whose table keeps the organization of each object (organization_id). */
export const ORGANIZATION_TABLES: Readonly<Record<string, string>> = {
  team: 'teams', credential: 'credentials', o_auth2_application: 'applications', inventory: 'inventories', project: 'projects', label: 'labels',
  execution_environment: 'execution_environments', job_template: 'job_templates', workflow_job_template: 'workflow_job_templates',
  notification_template: 'notification_templates', event_rule: 'event_rules', outbound_webhook: 'outbound_webhooks', policy: 'policies',
  service_catalog_item: 'service_catalog_items', drift_alert_rule: 'drift_alert_rules', scanner: 'scanners',
};

/**
 * The organization object `id` of `resourceName` belongs to; null for a global object (users,
 * instance groups, credential types, system job templates...) or one that does not exist.
 */
export async function ownerOf(tx: Queryable, resourceName: string, id: number): Promise<number | null> {
  if (resourceName === 'organization') return id;
  if (resourceName === 'role') {
    const [role] = await tx.query<{ content_type: string | null; object_id: number | null }>('SELECT content_type, object_id FROM roles WHERE id = $1', [id]);
    if (!role?.content_type || role.object_id === null || role.content_type === 'role') return null;
    return ownerOf(tx, role.content_type, role.object_id);
  }
  const table = ORGANIZATION_TABLES[resourceName];
  const sql = OWNER_THROUGH_PARENT[resourceName] ?? (table && `SELECT organization_id AS org FROM ${ident(table)} WHERE id = $1`);
  if (!sql) return null;
  const [row] = await tx.query<{ org: number | null }>(sql, [id]);
  return row?.org ?? null;
}

/** Of the organizations given, those that are tenants. */
async function tenantsAmong(tx: Queryable, organizations: Iterable<number | null>): Promise<Set<number>> {
  const ids = [...new Set([...organizations].filter((o): o is number => o !== null))];
  if (!ids.length) return new Set();
  const rows = await tx.query<{ organization_id: number }>('SELECT organization_id FROM tenants WHERE organization_id = ANY($1::integer[])', [ids]);
  return new Set(rows.map((r) => r.organization_id));
}

/** No tenant at all: nothing to check (the common case of a service without tenants costs one query). */
async function noTenants(tx: Queryable): Promise<boolean> {
  const [row] = await tx.query<{ any: boolean }>('SELECT EXISTS (SELECT 1 FROM tenants) AS any');
  return row?.any !== true;
}

/** Whether an object of organization `owner` may be combined with one of `other` (null: global). */
const crosses = (tenants: Set<number>, owner: number | null, other: number | null) =>
  other !== null && owner !== other && (tenants.has(other) || (owner !== null && tenants.has(owner)));

/** The owner a write gives the object: the first owner field it names (over the stored row on update). */
async function ownerGiven(tx: Queryable, resource: Resource, values: Values, existing: ResourceRow | null): Promise<number | null> {
  if (resource.name === 'organization') return existing?.id ?? null;
  for (const name of ownerFieldsOf(resource)) {
    const field = resource.fields[name];
    const value = name in values ? values[name] : existing?.[field.column];
    if (value === null || value === undefined) continue;
    return ownerOf(tx, field.ref!, value as number);
  }
  return null;
}

/**
 * A create or update (`existing`) setting related fields: 400 naming each field whose object
 * belongs to another tenant, and the owner field when the object would move into, out of or
 * between tenants. Nothing is written before it passes.
 */
export async function checkTenantBoundary(tx: Queryable, resource: Resource, values: Values, existing: ResourceRow | null): Promise<void> {
  const related = Object.keys(values).filter((name) => {
    const field = resource.fields[name];
    return field?.ref && !field.readOnly && values[name] !== null && values[name] !== undefined;
  });
  if (!related.length || (await noTenants(tx))) return;
  const ownerFields = ownerFieldsOf(resource);
  const owner = await ownerGiven(tx, resource, values, existing);
  const errors: FieldErrors = {};
  const owners = new Map<string, number | null>();
  for (const name of related) {
    if (ownerFields.includes(name)) continue;
    owners.set(name, await ownerOf(tx, resource.fields[name].ref!, values[name] as number));
  }
  const before = existing ? await ownerOf(tx, resource.name, existing.id) : owner;
  const tenants = await tenantsAmong(tx, [owner, before, ...owners.values()]);
  if (existing && owner !== before && (tenants.has(before!) || (owner !== null && tenants.has(owner)))) {
    const moved = ownerFields.find((name) => name in values) ?? ownerFields[0];
    errors[moved] = [moved === 'organization' ? ACROSS_TENANTS : foreignMessage(resource.fields[moved].label)];
  }
  for (const [name, other] of owners) {
    if (crosses(tenants, owner, other)) errors[name] = [foreignMessage(resource.fields[name].label)];
  }
  if (Object.keys(errors).length) throw new ValidationError(errors);
}

/**
 * Attaching `targetId` (of `targetName`) to a related list of the parent: 403 when it belongs to
 * another tenant. A role joins a team and its object only when the object is no tenant's or is
 * the team's tenant's (users belong to no organization: any may be given a role, as AWX allows).
 */
export async function checkTenantAttach(
  tx: Queryable, parentName: string, parentId: number, targetName: string, targetId: number,
): Promise<void> {
  if (await noTenants(tx)) return;
  const roleSide = parentName === 'role' ? 'parent' : targetName === 'role' ? 'target' : null;
  if (roleSide) {
    const [teamName, teamId, roleId] = roleSide === 'parent' ? [targetName, targetId, parentId] : [parentName, parentId, targetId];
    if (teamName !== 'team') return;
    const objectOwner = await ownerOf(tx, 'role', roleId);
    const teamOwner = await ownerOf(tx, 'team', teamId);
    const tenants = await tenantsAmong(tx, [objectOwner]);
    if (objectOwner !== null && tenants.has(objectOwner) && teamOwner !== objectOwner) {
      throw forbidden('A team of another organization cannot be given a role on an object of a tenant.');
    }
    return;
  }
  const owner = await ownerOf(tx, parentName, parentId);
  const other = await ownerOf(tx, targetName, targetId);
  const tenants = await tenantsAmong(tx, [owner, other]);
  if (crosses(tenants, owner, other)) throw forbidden(foreignMessage(nounOf(targetName)));
}

/** The objects a launch names in one prompt: `ids` of resource `resource`, given for `field`. */
export interface NamedInPrompt {
  field: string;
  resource: string;
  ids: readonly number[];
}

/**
 * The prompts of a launch for a template of organization `owner` that name an object of another
 * tenant, each with its refusal. Whether any tenant exists is asked once for the whole launch.
 */
export async function tenantPromptErrors(tx: Queryable, owner: number | null, prompts: readonly NamedInPrompt[]): Promise<FieldErrors> {
  const errors: FieldErrors = {};
  if (!prompts.some((prompt) => prompt.ids.length) || (await noTenants(tx))) return errors;
  for (const { field, resource, ids } of prompts) {
    const others: (number | null)[] = [];
    for (const id of ids) others.push(await ownerOf(tx, resource, id));
    const tenants = await tenantsAmong(tx, [owner, ...others]);
    if (others.some((other) => crosses(tenants, owner, other))) errors[field] = [foreignMessage(nounOf(resource))];
  }
  return errors;
}

/** "Inventory", "Notification Template": how a message names a resource. */
const nounOf = (resourceName: string) => resourceName.split('_').map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join(' ');

/**
 * SQL, for ORG_ADMINS_CAN_SEE_ALL_USERS (organization admins and auditors see every team and user):
 * the organization in `organizationColumn` is no tenant, or one the caller (`userParam`)
 * administers or audits. Tenants stay hidden from other organizations' admins.
 */
export function outsideOtherTenants(organizationColumn: string, userParam: string): string {
  // The uncorrelated test first: PostgreSQL answers it once per query, so without tenants no row costs more.
  return `(NOT EXISTS (SELECT 1 FROM tenants) OR ${organizationColumn} NOT IN (SELECT organization_id FROM tenants)
    OR ${organizationColumn} IN (${objectsWithRole('organization', ['admin_role', 'auditor_role'], userParam)}))`;
}

/**
 * SQL, as outsideOtherTenants for users: the user in `userColumn` belongs (as a member, admin or
 * auditor: he reads it) to no tenant the caller neither administers nor audits.
 */
export function inNoOtherTenant(userColumn: string, userParam: string): string {
  // The uncorrelated test first: PostgreSQL answers it once per query, so without tenants no user costs more.
  return `(NOT EXISTS (SELECT 1 FROM tenants) OR NOT EXISTS (SELECT 1 FROM tenants
    JOIN roles tenant_member ON tenant_member.content_type = 'organization' AND tenant_member.object_id = tenants.organization_id
      AND tenant_member.role_field = 'read_role'
    WHERE tenant_member.id IN (${rolesOfUser(userColumn)}) AND NOT ${outsideOtherTenants('tenants.organization_id', userParam)}))`;
}
