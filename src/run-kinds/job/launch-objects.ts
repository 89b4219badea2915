/**
 * Objects a launch may name in its prompts, and what the one who names them needs (AWX's
 * JobLaunchConfigAccess): use of the inventory and of each credential, read access to the
 * execution environment, labels and instance groups. Each must exist (400) and be usable (403).
 */
import { hasObjectRole } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { forbidden, ValidationError } from '../../api/errors.ts';
import { FieldProblem } from '../../api/fields.ts';
import { isVisible } from '../../api/list.ts';
import type { Queryable } from '../../db/database.ts';
import { assertCanUseCredential } from '../../resources/credentials/credential-use.ts';

const VISIBLE = {
  labels: { resource: 'label', table: 'labels', noun: 'label' },
  instance_groups: { resource: 'instance_group', table: 'instance_groups', noun: 'instance group' },
  execution_environment: { resource: 'execution_environment', table: 'execution_environments', noun: 'execution environment' },
} as const;

/** The ids in the order given, without repeats; 400 for one that does not exist, 403 for one the caller may not see. */
export async function checkLaunchObjects(tx: Queryable, ctx: RequestContext, field: keyof typeof VISIBLE, ids: readonly number[]): Promise<number[]> {
  const kind = VISIBLE[field];
  const unique = [...new Set(ids)];
  for (const id of unique) {
    const [row] = await tx.query(`SELECT id FROM ${kind.table} WHERE id = $1`, [id]);
    if (!row) throw ValidationError.field(field, `Invalid pk "${id}" - object does not exist.`);
    if (!(await isVisible(tx, ctx, ctx.service.resources.get(kind.resource), id))) throw forbidden(`You do not have permission to use this ${kind.noun}.`);
  }
  return unique;
}

/** A prompted list of related objects must be a list of ids. */
export const listOfIds = (noun: string) => (value: unknown): number[] => {
  if (Array.isArray(value) && value.every((id) => Number.isInteger(id) && id > 0)) return value as number[];
  throw new FieldProblem(`Expected a list of ${noun} ids.`);
};

export const useInventory = async (ctx: RequestContext, tx: Queryable, id: unknown): Promise<unknown> => {
  if (!(await hasObjectRole(ctx, tx, 'inventory', id as number, 'use_role'))) throw forbidden('You do not have permission to use this inventory.');
  return id;
};

export const useCredentials = async (ctx: RequestContext, tx: Queryable, ids: unknown): Promise<unknown> => {
  for (const id of ids as number[]) await assertCanUseCredential(ctx, tx, id, 'credentials');
  return ids;
};

export const useExecutionEnvironment = async (ctx: RequestContext, tx: Queryable, id: unknown): Promise<unknown> =>
  (await checkLaunchObjects(tx, ctx, 'execution_environment', [id as number]))[0];

export const useVisible = (field: 'labels' | 'instance_groups') => (ctx: RequestContext, tx: Queryable, ids: unknown): Promise<unknown> =>
  checkLaunchObjects(tx, ctx, field, ids as number[]);
