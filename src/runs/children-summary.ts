import type { Queryable } from '../db/database.ts';
import { eventLevel, META_EVENTS } from '../live/event-types.ts';

interface TreeEvent {
  counter: number;
  uuid: string;
  parent_uuid: string;
  event: string;
}

export interface ChildrenSummary {
  children_summary: Record<string, { rowNumber: number; numChildren: number }>;
  meta_event_nested_uuid: Record<string, string>;
  event_processing_finished: boolean;
  is_tree: boolean;
}

/**
 * AWX's children summary of a job's events (the collapsible tree of its output): per event with
 * descendants, its row and how many descendants it has; the parent given to each meta event
 * (verbose, warning...); is_tree false when events do not nest in order (free strategy).
 */
export function summarizeTree(events: readonly TreeEvent[]): ChildrenSummary {
  const result: ChildrenSummary = { children_summary: {}, meta_event_nested_uuid: {}, event_processing_finished: true, is_tree: true };
  if (!events.length) return result;
  const tally = new Map<number, { rowNumber: number; numChildren: number }>(events.map((e) => [e.counter, { rowNumber: 0, numChildren: 0 }]));
  const counterOf = new Map(events.map((e) => [e.uuid, e.counter]));
  const parentOf = new Map(events.map((e) => [e.uuid, e.parent_uuid]));
  const current: (string | null)[] = [null, null, null, null];
  const isMeta = (e: TreeEvent) => META_EVENTS.has(e.event);
  // For each row, the first playbook (non-meta) event at or after it.
  const nextPlaybookEvent: TreeEvent[] = new Array(events.length);
  for (let i = events.length - 1, next = events[events.length - 1]; i >= 0; i--) {
    if (!isMeta(events[i])) next = events[i];
    nextPlaybookEvent[i] = next;
  }
  let previous = events[0];
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    if (!isMeta(e)) previous = e;
    if (!e.uuid) continue;
    if (!isMeta(e)) {
      const level = eventLevel(e.event);
      current[level] = e.uuid;
      current.fill(null, level + 1);
    }
    let parent = e.parent_uuid;
    if (parent && !current.includes(parent)) return { ...result, is_tree: false };
    if (isMeta(e)) {
      // A meta event hangs under the deeper of the playbook events around it.
      const next = nextPlaybookEvent[i];
      const before = eventLevel(previous.event);
      const after = eventLevel(next.event);
      parent = after && after > before ? next.parent_uuid : previous.parent_uuid;
      if (parent) result.meta_event_nested_uuid[e.counter] = parent;
    }
    tally.get(e.counter)!.rowNumber = i;
    for (let seen = 0; parent && seen < events.length; seen++) {
      const ancestor = counterOf.get(parent);
      if (ancestor === undefined) break;
      tally.get(ancestor)!.numChildren += 1;
      parent = parentOf.get(parent) ?? '';
    }
  }
  for (const [counter, entry] of tally) if (entry.numChildren) result.children_summary[counter] = entry;
  return result;
}

/**
 * The children summary of a job: nothing until its events are all stored; then made from them
 * once and kept (job_children_summaries), since a finished job's events no longer change.
 */
export async function jobChildrenSummary(db: Queryable, job: { id: number; event_processing_finished: boolean }): Promise<ChildrenSummary> {
  if (!job.event_processing_finished) return { children_summary: {}, meta_event_nested_uuid: {}, event_processing_finished: false, is_tree: true };
  const [kept] = await db.query<{ summary: ChildrenSummary }>('SELECT summary FROM job_children_summaries WHERE job_id = $1', [job.id]);
  if (kept) return kept.summary;
  const events = await db.query<TreeEvent>(
    'SELECT counter, uuid, parent_uuid, event FROM unified_job_events WHERE unified_job_id = $1 ORDER BY counter',
    [job.id],
  );
  const summary = summarizeTree(events);
  await db.query('INSERT INTO job_children_summaries (job_id, summary) VALUES ($1, $2) ON CONFLICT (job_id) DO NOTHING', [job.id, JSON.stringify(summary)]);
  return summary;
}
