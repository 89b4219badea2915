import type { RequestContext } from '../api/context.ts';
import { forbidden, notFound } from '../api/errors.ts';
import { isVisible } from '../api/list.ts';
import { getResource, type Resource } from '../api/resource.ts';
import { serializeRows } from '../api/serialize.ts';
import type { Queryable, Row } from '../db/database.ts';
import type { EventRun } from './run-events.ts';

/**
 * One event of a run of this kind, by the id in the URL: 404 when there is no such event of this
 * kind, 403 when the caller may not see its run (an event is visible to whoever sees its run).
 * Answers the event as the event resource serializes it, and its run's row.
 */
export async function loadVisibleEvent(db: Queryable, ctx: RequestContext, run: Resource, id: string): Promise<{ event: Row; run: EventRun }> {
  if (!/^[0-9]{1,15}$/.test(id)) throw notFound();
  const [event] = await db.query(
    'SELECT e.* FROM unified_job_events e JOIN unified_jobs u ON u.id = e.unified_job_id WHERE e.id = $1 AND u.kind = $2',
    [Number(id), run.name],
  );
  if (!event) throw notFound();
  if (!(await isVisible(db, ctx, run, event.unified_job_id))) throw forbidden();
  const [owner] = await db.query<EventRun>('SELECT * FROM unified_jobs WHERE id = $1', [event.unified_job_id]);
  const [serialized] = await serializeRows(db, ctx, getResource('unified_job_event'), [event]);
  return { event: serialized, run: owner };
}
