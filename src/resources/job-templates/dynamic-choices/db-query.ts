/**
 * db_query: names (or ids, descriptions) of objects the caller may read, through the same list
 * machinery as GET /api/v2/<model>/: its visibility rules, its filters.
 */
import type { RequestContext } from '../../../api/context.ts';
import { ApiError } from '../../../api/errors.ts';
import { listAll, type Query, type Scope } from '../../../api/list.ts';
import type { Queryable, Row } from '../../../db/database.ts';
import { MAX_CHOICES, SourceError, toChoices } from './choices.ts';
import { DB_QUERY_MODELS } from './source-spec.ts';

// Rows read to find MAX_CHOICES distinct values (several hosts may share a name).
const MAX_ROWS = MAX_CHOICES * 10;

const TEMPLATE_KINDS: Scope = (alias) => `${alias}.kind IN ('job_template', 'workflow_job_template')`;

/** Hosts and groups without a filter are those of the template's inventory (all the caller sees when it has none). */
export const usesTemplateInventory = (d: Record<string, unknown>): boolean =>
  (d.model === 'hosts' || d.model === 'groups') && Object.keys((d.filter as object | null | undefined) ?? {}).length === 0;

function scopeOf(d: Record<string, unknown>, template: Row): Scope | undefined {
  if (d.model === 'templates') return TEMPLATE_KINDS;
  const inventory = template.inventory_id as number | null;
  if (usesTemplateInventory(d) && inventory) return (alias, params) => `${alias}.inventory_id = ${params.add(inventory)}`;
  return undefined;
}

export async function queryChoices(db: Queryable, ctx: RequestContext, template: Row, d: Record<string, unknown>): Promise<string[]> {
  const model = DB_QUERY_MODELS[d.model as string];
  const resource = ctx.service.resources.get(model.resource);
  const field = (d.field as string | undefined) ?? 'name';
  const query: Query = { order_by: field === 'id' ? 'id' : `${field},id` };
  for (const [key, value] of Object.entries((d.filter as Record<string, unknown> | null | undefined) ?? {})) query[key] = String(value);
  let rows: Row[];
  try {
    rows = await listAll(db, ctx, resource, query, MAX_ROWS, scopeOf(d, template));
  } catch (err) {
    if (err instanceof ApiError && err.status < 500) throw new SourceError(`The query was refused: ${err.message}`);
    throw err;
  }
  const column = field === 'id' ? 'id' : resource.allFields[field]?.column ?? field;
  return toChoices(rows.map((row) => row[column]));
}
