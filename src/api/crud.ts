/**
 * Reading request bodies with the field declarations, and the writes of the conventional routes
 * (create, update, delete, link) with their access checks, references, uniqueness, hooks, roles
 * and activity stream, in one transaction. A conventional route's body is checked by its schema
 * first (field-schemas.ts bodySchema, route-schemas.ts checkedBody); parseRequestBody reads the
 * fields the schema passed and answers the schema's problems and its own in one 400.
 */
import type { Queryable, ResourceRow } from '../db/database.ts';
import { PgError, pgErrorCode } from '../db/database.ts';
import { activityValue, recordActivity, snapshot } from '../activity/record.ts';
import { actorId, type RequestContext, type ResourceSet } from './context.ts';
import { ApiError, forbidden, notFound, ValidationError, type FieldErrors } from './errors.ts';
import { generateSecrets, revealOnce } from './fields.ts';
import { readField } from './read-field.ts';
import type { Resource, Values } from './resource.ts';
import { jsonTypeName } from './schema-errors.ts';
import { ident } from './sql.ts';
import { checkTenantAttach, checkTenantBoundary } from './tenant-boundary.ts';
import { deleteRolesOf } from '../rbac/graph.ts';
import { createObjectRoles, syncObjectRoles } from '../rbac/object-roles.ts';

export type WriteMode = 'create' | 'update' | 'replace';

/**
 * Reads a request body with the resource's field declarations: read-only and unknown keys are
 * ignored (as AWX does), every problem is collected so the caller sees them all at once. Bodies of
 * the conventional routes are checked by their schema first (field-schemas.ts bodySchema), which
 * refuses what a field's type cannot take; the declarations then read what it passed: references,
 * patterns, ranges the schema cannot hold, write-once fields, secrets kept as $encrypted$.
 */
export function parseBody(resource: Resource, body: unknown, mode: WriteMode, existing: ResourceRow | null): Values {
  const { values, errors } = readBody(resource, body, mode, existing, {});
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return values;
}

/**
 * parseBody for a request, with what the route's body schema already refused (`refused`, by field):
 * when the body has problems, a caller who may not write even its valid part gets 403 instead of
 * the field errors, as AWX checks permission before validation.
 */
export async function parseRequestBody(
  resource: Resource,
  body: unknown,
  mode: WriteMode,
  existing: ResourceRow | null,
  mayWrite: (values: Values) => boolean | Promise<boolean>,
  refused: FieldErrors = {},
): Promise<Values> {
  const { values, errors } = readBody(resource, body, mode, existing, refused);
  if (!Object.keys(errors).length) return values;
  if (!(await mayWrite(values))) throw forbidden();
  throw new ValidationError(errors);
}

function readBody(resource: Resource, body: unknown, mode: WriteMode, existing: ResourceRow | null, refused: FieldErrors): { values: Values; errors: FieldErrors } {
  const input = (body === undefined ? {} : body) as Record<string, unknown>;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ApiError(400, { detail: `Invalid data. Expected a dictionary, but got ${jsonTypeName(body)}.` });
  }
  const values: Values = {};
  const errors: FieldErrors = {};
  for (const [name, field] of Object.entries(resource.fields)) {
    if (field.readOnly) continue;
    if (refused[name]) {
      errors[name] = refused[name];
      continue;
    }
    if (!(name in input)) {
      if (mode === 'update') continue;
      // A replace keeps a secret it does not give (the replace schema does not require secrets either).
      if (mode === 'replace' && field.secret && existing) continue;
      if (field.required) errors[name] = ['This field is required.'];
      else if (mode === 'create' && field.default !== undefined) values[name] = field.default;
      continue;
    }
    const reading = readField(field, input[name], existing);
    if ('problem' in reading) errors[name] = [reading.problem];
    else if ('value' in reading) values[name] = reading.value;
  }
  for (const [name, problems] of Object.entries(refused)) errors[name] ??= problems;
  return { values, errors };
}

/** Referenced objects (of `resources`) must exist. */
export async function checkReferences(tx: Queryable, resources: ResourceSet, resource: Resource, values: Values): Promise<void> {
  const errors: FieldErrors = {};
  for (const [name, value] of Object.entries(values)) {
    const field = resource.fields[name];
    if (!field?.ref || value === null || value === undefined) continue;
    const target = resources.get(field.ref);
    const rows = await tx.query(`SELECT 1 FROM ${ident(target.table)} WHERE id = $1`, [value]);
    if (!rows.length) errors[name] = [`Invalid pk "${String(value)}" - object does not exist.`];
  }
  if (Object.keys(errors).length) throw new ValidationError(errors);
}

/** Declared uniqueness, checked first for a clear message; the database constraint remains the guarantee. */
async function checkUnique(tx: Queryable, resource: Resource, values: Values, existing: ResourceRow | null): Promise<void> {
  for (const fields of resource.unique) {
    if (!existing && fields.some((f) => !(f in values))) continue;
    const conditions: string[] = [];
    const params: unknown[] = [];
    for (const f of fields) {
      const column = resource.fields[f].column;
      const value = f in values ? values[f] : existing?.[column];
      if (value === null || value === undefined) {
        conditions.push(`${ident(column)} IS NULL`);
        continue;
      }
      params.push(value);
      conditions.push(`${ident(column)} = $${params.length}`);
    }
    if (existing) {
      params.push(existing.id);
      conditions.push(`id <> $${params.length}`);
    }
    const rows = await tx.query(`SELECT 1 FROM ${ident(resource.table)} WHERE ${conditions.join(' AND ')} LIMIT 1`, params);
    if (rows.length) throw uniqueError(resource, fields);
  }
}

function uniqueError(resource: Resource, fields: string[]): ValidationError {
  const labels = fields.map((f) => resource.fields[f].label);
  const label = resource.label.replace(/ List$/, '');
  if (fields.length === 1) return ValidationError.field(fields[0], [`${label} with this ${labels[0]} already exists.`][0]);
  return new ValidationError({ __all__: [`${label} with this ${labels.join(' and ')} already exists.`] });
}

/** Turns a constraint violation that slipped past the checks (a concurrent write) into a 400. */
export function translateDbError(resource: Resource, err: unknown): never {
  const code = pgErrorCode(err);
  if (code === PgError.uniqueViolation) {
    throw new ValidationError({ __all__: [`${resource.label.replace(/ List$/, '')} with these values already exists.`] });
  }
  if (code === PgError.foreignKeyViolation) throw new ValidationError({ __all__: ['A referenced object does not exist or is still in use.'] });
  if (code === PgError.checkViolation || code === PgError.notNullViolation) {
    throw new ValidationError({ __all__: ['One of the values is not allowed.'] });
  }
  throw err;
}

export function columnsOf(resource: Resource, values: Values): [string[], unknown[]] {
  const columns: string[] = [];
  const params: unknown[] = [];
  for (const [name, value] of Object.entries(values)) {
    const field = resource.fields[name];
    if (!field) continue;
    columns.push(field.column);
    params.push(field.optionsType === 'json' && value !== null ? JSON.stringify(value) : value);
  }
  return [columns, params];
}

/** The stored row of one object, 404 when missing; R is the caller's word for the resource's row type, as with query<T>. */
export async function loadRow<R extends ResourceRow = ResourceRow>(tx: Queryable, resource: Resource, id: number, lock = false): Promise<R> {
  const [row] = await tx.query<R>(`SELECT * FROM ${ident(resource.table)} WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  if (!row) throw notFound();
  return row;
}

export async function createObject<R extends ResourceRow = ResourceRow>(tx: Queryable, ctx: RequestContext, resource: Resource, values: Values): Promise<R> {
  if (!(await resource.access.canCreate(ctx, tx, values))) throw forbidden();
  await checkReferences(tx, ctx.service.resources, resource, values);
  await checkTenantBoundary(tx, resource, values, null);
  await checkUnique(tx, resource, values, null);
  await resource.hooks.beforeWrite?.(tx, ctx, values, null);
  const generated = generateSecrets(resource.fields, values);
  const [columns, params] = columnsOf(resource, values);
  if (resource.allFields.created_by) {
    columns.push('created_by_id', 'modified_by_id');
    params.push(actorId(ctx), actorId(ctx));
  }
  const placeholders = params.map((_, i) => `$${i + 1}`);
  const [row] = await tx
    .query<R>(`INSERT INTO ${ident(resource.table)} (${columns.map(ident).join(', ')}) VALUES (${placeholders.join(', ')}) RETURNING *`, params)
    .catch((err) => translateDbError(resource, err));
  revealOnce(row, generated);
  await createObjectRoles(tx, resource, row);
  await resource.hooks.afterWrite?.(tx, ctx, row, null);
  await recordActivity(tx, ctx, { operation: 'create', object1: resource.name, object1Id: row.id, changes: snapshot(resource, row) });
  return row;
}

export async function updateObject<R extends ResourceRow = ResourceRow>(tx: Queryable, ctx: RequestContext, resource: Resource, existing: ResourceRow, values: Values): Promise<R> {
  if (!(await resource.access.canChange(ctx, tx, existing, values))) throw forbidden();
  await checkReferences(tx, ctx.service.resources, resource, values);
  await checkTenantBoundary(tx, resource, values, existing);
  await checkUnique(tx, resource, values, existing);
  await resource.hooks.beforeWrite?.(tx, ctx, values, existing);
  const [columns, params] = columnsOf(resource, values);
  const sets = columns.map((c, i) => `${ident(c)} = $${i + 1}`);
  params.push(actorId(ctx), existing.id);
  const [row] = await tx
    .query<R>(
      `UPDATE ${ident(resource.table)} SET ${[...sets, 'modified = now()', `modified_by_id = $${params.length - 1}`].join(', ')}
       WHERE id = $${params.length} RETURNING *`,
      params,
    )
    .catch((err) => translateDbError(resource, err));
  await syncObjectRoles(tx, resource, row, existing);
  await resource.hooks.afterWrite?.(tx, ctx, row, existing);
  const changes: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(resource.fields)) {
    const before = existing[field.column];
    const after = row[field.column];
    if (JSON.stringify(before) !== JSON.stringify(after)) {
      changes[name] = [activityValue(resource, name, before), activityValue(resource, name, after)];
    }
  }
  if (Object.keys(changes).length) {
    await recordActivity(tx, ctx, { operation: 'update', object1: resource.name, object1Id: row.id, changes });
  }
  return row;
}

export async function deleteObject(tx: Queryable, ctx: RequestContext, resource: Resource, existing: ResourceRow): Promise<void> {
  if (!(await resource.access.canDelete(ctx, tx, existing))) throw forbidden();
  if (resource.remove) return resource.remove(tx, ctx, existing);
  await removeObject(tx, ctx, resource, existing);
}

/**
 * Deletes an object with its roles and records it, without asking for permission: for objects
 * that go with their parent (an organization's teams), whose deletion was already allowed.
 */
export async function removeObject(tx: Queryable, ctx: RequestContext, resource: Resource, existing: ResourceRow): Promise<void> {
  await resource.hooks.beforeDelete?.(tx, ctx, existing);
  await deleteRolesOf(tx, resource.name, existing.id);
  await tx.query(`DELETE FROM ${ident(resource.table)} WHERE id = $1`, [existing.id]).catch((err) => translateDbError(resource, err));
  await recordActivity(tx, ctx, { operation: 'delete', object1: resource.name, object1Id: existing.id, changes: snapshot(resource, existing) });
}

/** Links or unlinks two objects through a related list and records it. Answers false when nothing changed. */
export async function associate(
  tx: Queryable,
  ctx: RequestContext,
  resource: Resource,
  parent: ResourceRow,
  relationName: string,
  targetId: number,
  detach: boolean,
): Promise<void> {
  const relation = resource.related[relationName];
  const target = ctx.service.resources.get(relation.target);
  if (targetId > 2_147_483_647) throw notFound();
  const [targetRow] = await tx.query(`SELECT id FROM ${ident(target.table)} WHERE id = $1`, [targetId]);
  if (!targetRow) throw notFound();
  if (relation.authorize) await relation.authorize(ctx, tx, parent.id, targetId, detach);
  else if (!(await resource.access.canAttach(ctx, tx, parent, relationName, targetId, detach))) throw forbidden();
  if (!detach) await checkTenantAttach(tx, resource.name, parent.id, target.name, targetId);
  const changed = detach ? await relation.detach!(tx, parent.id, targetId, ctx) : await relation.attach!(tx, parent.id, targetId, ctx);
  if (!changed) return;
  await recordActivity(tx, ctx, {
    operation: detach ? 'disassociate' : 'associate',
    object1: resource.name,
    object1Id: parent.id,
    object2: target.name,
    object2Id: targetId,
    association: relation.association ?? relationName,
    changes: {},
  });
}
