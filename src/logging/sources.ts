/** What the analytics loggers send: job events as stored, facts as captured, activity stream entries as committed. */
import type { Database, Queryable } from '../db/database.ts';
import type { ServiceLogger } from '../api/logger.ts';
import { factRecords, jobEventFields } from './record.ts';
import type { LogShipper } from './shipper.ts';

/** The job_events logger: each stored event of a run (AWX's message "Event data saved."). */
export function shipJobEvents(shipper: LogShipper, jobId: number, rows: readonly Record<string, unknown>[]): void {
  if (!shipper.wants('job_events')) return;
  for (const row of rows) {
    shipper.ship({ logger: 'job_events', level: 'INFO', message: 'Event data saved.', fields: jobEventFields(jobId, row) });
  }
}

/** The system_tracking logger: the facts of hosts a job saved, as AWX's finish_fact_cache sends them. */
export async function shipFacts(db: Queryable, shipper: LogShipper, jobId: number | null, hostIds: readonly number[]): Promise<void> {
  if (!shipper.wants('system_tracking')) return;
  const hosts = await db.query<{ name: string; inventory_id: number; inventory_name: string; facts: Record<string, unknown>; modified: Date | null }>(
    `SELECT h.name, h.inventory_id, i.name AS inventory_name, h.ansible_facts AS facts, h.ansible_facts_modified AS modified
     FROM hosts h JOIN inventories i ON i.id = h.inventory_id WHERE h.id = ANY($1::int[]) ORDER BY h.id`,
    [hostIds],
  );
  const individually = shipper.factsIndividually();
  for (const host of hosts) {
    const records = factRecords({
      inventoryId: host.inventory_id, hostName: host.name, jobId, modified: (host.modified ?? new Date()).toISOString(), facts: host.facts ?? {},
    }, individually);
    for (const fields of records) {
      shipper.ship({ logger: 'system_tracking', level: 'INFO', message: `New fact for inventory ${host.inventory_name} host ${host.name}`, fields });
    }
  }
}

const ACTIVITY_SWEEP_MS = 2_000;
const ACTIVITY_BATCH = 500;

interface ActivityRow {
  id: number;
  timestamp: Date;
  operation: string;
  object1: string;
  object1_id: number;
  object2: string;
  object2_id: number | null;
  object_association: string;
  changes: unknown;
  actor_id: number | null;
  actor: string | null;
}

/** An activity stream entry as AWX's emit_activity_stream_change sends it. */
export function activityFields(row: ActivityRow): Record<string, unknown> {
  return {
    id: row.id,
    timestamp: row.timestamp instanceof Date ? row.timestamp.toISOString() : row.timestamp,
    changes: row.changes,
    relationship: row.object_association,
    actor: row.actor,
    actor_id: row.actor_id,
    operation: row.operation,
    object1: row.object1,
    object1_id: row.object1_id,
    object2: row.object2,
    object2_id: row.object2_id,
  };
}

export interface ActivityShipping {
  stop(): Promise<void>;
  /** Runs a round now and resolves once it is over (tests). */
  settle(): Promise<void>;
}

/**
 * The activity_stream logger: follows the activity stream table and sends the entries this node
 * recorded, once committed (as AWX sends them on commit). Entries recorded while the logger was off
 * are not sent when it is turned on.
 */
export function startActivityShipping(db: Database, shipper: LogShipper, nodeName: string, logger: ServiceLogger): ActivityShipping {
  let cursor: number | null = null;
  let offSince = new Date();
  let running: Promise<void> | null = null;
  let stopped = false;

  const round = async () => {
    if (!shipper.wants('activity_stream')) {
      cursor = null;
      offSince = new Date();
      return;
    }
    if (cursor === null) {
      const [{ max }] = await db.query<{ max: number }>('SELECT coalesce(max(id), 0)::int AS max FROM activity_stream WHERE timestamp <= $1', [offSince]);
      cursor = max;
    }
    for (;;) {
      const rows: ActivityRow[] = await db.query<ActivityRow>(
        `SELECT a.id, a.timestamp, a.operation, a.object1, a.object1_id, a.object2, a.object2_id, a.object_association, a.changes, a.actor_id, u.username AS actor
         FROM activity_stream a LEFT JOIN users u ON u.id = a.actor_id
         WHERE a.id > $1 AND a.action_node = $2 ORDER BY a.id LIMIT ${ACTIVITY_BATCH}`,
        [cursor, nodeName],
      );
      for (const row of rows) {
        shipper.ship({ logger: 'activity_stream', level: 'INFO', message: `Activity Stream update entry for ${row.object1}`, fields: activityFields(row), at: row.timestamp });
        cursor = row.id;
      }
      if (rows.length < ACTIVITY_BATCH || stopped) return;
    }
  };
  const wake = () => {
    running ??= round()
      .catch((err) => logger.error('activity stream shipping failed:', err instanceof Error ? err.message : err))
      .finally(() => { running = null; });
    return running;
  };
  const timer = setInterval(() => void wake(), ACTIVITY_SWEEP_MS);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
    async settle() {
      await running;
      await wake();
    },
  };
}
