import type { Queryable, Row } from '../db/database.ts';
import { actorId, type RequestContext } from '../api/context.ts';
import type { Resource } from '../api/resource.ts';

export type Operation = 'create' | 'update' | 'delete' | 'associate' | 'disassociate';

export interface ActivityEntry {
  operation: Operation;
  object1: string;
  object1Id: number;
  object2?: string;
  object2Id?: number;
  association?: string;
  changes: Record<string, unknown>;
}

export const HIDDEN = 'hidden';

/** Writes one activity stream record in the caller's transaction, so it stands or falls with the change. */
export async function recordActivity(tx: Queryable, ctx: RequestContext, entry: ActivityEntry): Promise<void> {
  if (ctx.service.settings.get<boolean>('ACTIVITY_STREAM_ENABLED') === false) return;
  await tx.query(
    `INSERT INTO activity_stream (operation, object1, object1_id, object2, object2_id, object_association, changes, actor_id, action_node)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9)`,
    [
      entry.operation,
      entry.object1,
      entry.object1Id,
      entry.object2 ?? '',
      entry.object2Id ?? null,
      entry.association ?? '',
      JSON.stringify(entry.changes),
      actorId(ctx),
      ctx.service.env.nodeName,
    ],
  );
}

/**
 * recordActivity for an object that the same statement creates, as a data-modifying WITH query:
 * `source` names the WITH query that creates it (its `id` is object1's id), `changes` is a jsonb
 * expression over that query's columns, and the entry's parameters are numbered from $n. Null
 * when the activity stream is off.
 */
export function activityOfCreated(
  ctx: RequestContext, entry: Pick<ActivityEntry, 'operation' | 'object1'>, source: string, changes: string, n: number,
): { sql: string; params: unknown[] } | null {
  if (ctx.service.settings.get<boolean>('ACTIVITY_STREAM_ENABLED') === false) return null;
  return {
    sql: `INSERT INTO activity_stream (operation, object1, object1_id, object2, object2_id, object_association, changes, actor_id, action_node)
     SELECT $${n}::text, $${n + 1}::text, ${source}.id, '', NULL, '', ${changes}, $${n + 2}::integer, $${n + 3}::text FROM ${source}`,
    params: [entry.operation, entry.object1, actorId(ctx), ctx.service.env.nodeName],
  };
}

/** A field's value as the activity stream shows it: secrets hidden, dates as ISO text. */
export function activityValue(resource: Resource, name: string, value: unknown): unknown {
  const field = resource.allFields[name];
  if (field?.secret) return HIDDEN;
  return value instanceof Date ? value.toISOString() : value;
}

/** Every declared field of a row, for create and delete records. */
export function snapshot(resource: Resource, row: Row): Record<string, unknown> {
  return Object.fromEntries(Object.entries(resource.fields).map(([name, f]) => [name, activityValue(resource, name, row[f.column])]));
}
