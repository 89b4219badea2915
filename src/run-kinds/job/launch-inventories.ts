/**
 * The inventories a job runs against besides its primary one (docs/job-templates.md, "Several
 * inventories"): the template's, or at launch/ those the `inventories` field names when the
 * template asks for its inventory on launch. Hosts are named by their name alone in a run, so a
 * host name found in two of them is refused rather than guessed at.
 */
import { hasObjectRole } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { forbidden, ValidationError } from '../../api/errors.ts';
import { tenantPromptErrors } from '../../api/tenant-boundary.ts';
import type { Queryable } from '../../db/database.ts';
import type { JobTemplateRow } from '../../db/tables.ts';
import { MAX_EXTRA_INVENTORIES } from '../../resources/job-templates/template-inventories.ts';

const given = (value: unknown) => value !== undefined && value !== null;

/**
 * The `inventories` of a launch body, when the template asks for its inventory on launch: a list
 * of ids replacing the template's extra inventories, each one the caller may use (403) that exists
 * (400) and is of the template's tenant (400). Undefined when the launch leaves them to the template;
 * a value the template does not ask for goes into `ignored`, as other prompts do.
 */
export async function promptedInventories(
  tx: Queryable, ctx: RequestContext, template: JobTemplateRow, input: Record<string, unknown>, ignored: Record<string, unknown>,
): Promise<number[] | undefined> {
  const value = input.inventories;
  if (!given(value)) return undefined;
  if (!template.ask_inventory_on_launch) {
    ignored.inventories = value;
    return undefined;
  }
  if (!Array.isArray(value) || !value.every((id) => Number.isInteger(id) && id > 0 && id <= 2_147_483_647)) {
    throw ValidationError.field('inventories', 'Expected a list of inventory ids.');
  }
  const ids = [...new Set(value as number[])];
  if (ids.length > MAX_EXTRA_INVENTORIES) throw ValidationError.field('inventories', `At most ${MAX_EXTRA_INVENTORIES} inventories may be added to the primary one.`);
  for (const id of ids) {
    const [row] = await tx.query('SELECT id FROM inventories WHERE id = $1', [id]);
    if (!row) throw ValidationError.field('inventories', `Invalid pk "${id}" - object does not exist.`);
  }
  for (const id of ids) {
    if (!(await hasObjectRole(ctx, tx, 'inventory', id, 'use_role'))) throw forbidden('You do not have permission to use this inventory.');
  }
  const errors = await tenantPromptErrors(tx, template.organization_id ?? null, [{ field: 'inventories', resource: 'inventory', ids }]);
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return ids;
}

/**
 * A host name found in more than one of the inventories (only enabled hosts run), as the message
 * refusing the launch, or null. Smart inventories are read through their memberships.
 */
export async function ambiguousHostProblem(db: Queryable, inventoryIds: readonly number[]): Promise<string | null> {
  if (inventoryIds.length < 2) return null;
  const [clash] = await db.query<{ name: string; inventories: string[] }>(
    `WITH member AS (
       SELECT i.id AS inventory_id, i.name AS inventory, h.name FROM unnest($1::int[]) AS chosen(id) JOIN inventories i ON i.id = chosen.id
       JOIN hosts h ON h.enabled AND (h.inventory_id = i.id AND i.kind <> 'smart'
         OR h.id IN (SELECT host_id FROM smart_inventory_memberships m WHERE m.inventory_id = i.id))
     )
     SELECT name, array_agg(DISTINCT inventory ORDER BY inventory) AS inventories FROM member
     GROUP BY name HAVING count(DISTINCT inventory_id) > 1 ORDER BY name LIMIT 1`,
    [[...inventoryIds]],
  );
  if (!clash) return null;
  return `Host "${clash.name}" is in more than one of the job's inventories (${clash.inventories.join(', ')}): a run names hosts by name alone, so each must be in one inventory only.`;
}

/** The extra inventories of a job: those given (or the template's), without the primary one; refused when they share a host name. */
export async function extraInventoriesFor(
  tx: Queryable, templateId: number, primaryId: number, given: readonly number[] | undefined,
): Promise<number[]> {
  const ids = given ?? (await tx.query<{ inventory_id: number }>(
    'SELECT inventory_id FROM job_template_inventories WHERE job_template_id = $1 ORDER BY position, inventory_id',
    [templateId],
  )).map((r) => r.inventory_id);
  const extra = ids.filter((id) => id !== primaryId);
  const problem = await ambiguousHostProblem(tx, [primaryId, ...extra]);
  if (problem) throw ValidationError.field('inventories', problem);
  return extra;
}
