import type { RequestContext } from '../api/context.ts';
import { serializeRows } from '../api/serialize.ts';
import type { Queryable } from '../db/database.ts';
import type { SerializedObject } from '../api/resource.ts';
import type { UnifiedJobEventRow } from '../db/tables.ts';
import type { EventRun } from './run-events.ts';

/** An event loaded by its route (visible to the caller), as the event resource serializes it, with its run's row. */
export async function eventWithRun(db: Queryable, ctx: RequestContext, stored: UnifiedJobEventRow): Promise<{ event: SerializedObject; run: EventRun }> {
  const [owner] = await db.query<EventRun>('SELECT * FROM unified_jobs WHERE id = $1', [stored.unified_job_id]);
  const [event] = await serializeRows(db, ctx, ctx.service.resources.get('unified_job_event'), [stored]);
  return { event, run: owner };
}
