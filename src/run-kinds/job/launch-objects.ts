/** Labels and instance groups chosen at launch: each must exist and be visible to the launcher (AWX). */
import type { RequestContext } from '../../api/context.ts';
import { forbidden, ValidationError } from '../../api/errors.ts';
import { isVisible } from '../../api/list.ts';
import { getResource } from '../../api/resource.ts';
import type { Queryable } from '../../db/database.ts';

const KINDS = {
  labels: { resource: 'label', table: 'labels', noun: 'label' },
  instance_groups: { resource: 'instance_group', table: 'instance_groups', noun: 'instance group' },
} as const;

/** The ids in the order given, without repeats; 400 for one that does not exist, 403 for one the caller may not see. */
export async function checkLaunchObjects(tx: Queryable, ctx: RequestContext, field: keyof typeof KINDS, ids: readonly number[]): Promise<number[]> {
  const kind = KINDS[field];
  const unique = [...new Set(ids)];
  for (const id of unique) {
    const [row] = await tx.query(`SELECT id FROM ${kind.table} WHERE id = $1`, [id]);
    if (!row) throw ValidationError.field(field, `Invalid pk "${id}" - object does not exist.`);
    if (!(await isVisible(tx, ctx, getResource(kind.resource), id))) throw forbidden(`You do not have permission to use this ${kind.noun}.`);
  }
  return unique;
}
