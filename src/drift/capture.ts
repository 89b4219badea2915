/**
 * Snapshots and drift of the hosts whose facts a job saved (docs/drift.md#the-pipeline, steps 2 to 5).
 * Hosts are taken BATCH at a time, each batch in one transaction: hosts whose facts equal their last
 * snapshot's are left out by the database (jsonb equality, the same test as equal hashes of the sorted
 * JSON) so that only changed facts travel; each changed host gets a snapshot with the SHA-256 of its
 * sorted JSON, one drift record per changed top-level fact against its previous snapshot (a host's first
 * snapshot is its baseline), and then the alert rules are evaluated for the hosts that drifted.
 */
import type { Database, Queryable } from '../db/database.ts';
import { factsHash } from './canonical-json.ts';
import { severityRank } from './categories.ts';
import { diffFacts, type FactDiff } from './fact-diff.ts';
import { evaluateAlertRules } from './alert-rules.ts';

const BATCH = 500;

export interface CaptureOutcome {
  hosts: number;
  snapshots: number;
  detections: number;
  alerts: number;
}

interface ChangedHost {
  id: number;
  facts: Record<string, unknown>;
  last_id: number | null;
  last_hash: string | null;
  last_facts: Record<string, unknown> | null;
}

/** `captured`: told, after each batch's commit, the hosts that got a snapshot (their facts go to the log aggregator). */
export async function captureFacts(
  db: Database, jobId: number | null, hostIds: readonly number[], captured?: (hostIds: number[]) => Promise<void>,
): Promise<CaptureOutcome> {
  const outcome: CaptureOutcome = { hosts: hostIds.length, snapshots: 0, detections: 0, alerts: 0 };
  for (let start = 0; start < hostIds.length; start += BATCH) {
    const batch = hostIds.slice(start, start + BATCH);
    const done = await db.transaction((tx) => captureBatch(tx, jobId, batch));
    if (done.hostIds.length) await captured?.(done.hostIds);
    outcome.snapshots += done.snapshots;
    outcome.detections += done.detections;
    outcome.alerts += done.alerts;
  }
  return outcome;
}

async function captureBatch(tx: Queryable, jobId: number | null, hostIds: readonly number[]) {
  // Every test of the facts involves the last snapshot, so it runs on the batch's rows only: a test of
  // hosts alone (facts <> '{}') may be run by a sequential scan on every row of the table, before the
  // id test, and read every host's facts (which the planner does not count as costly).
  const changed = await tx.query<ChangedHost>(
    `SELECT h.id, h.ansible_facts AS facts, last.id AS last_id, last.facts_hash AS last_hash, last.facts AS last_facts
     FROM hosts h
     LEFT JOIN LATERAL (SELECT s.id, s.facts_hash, s.facts FROM host_fact_snapshots s WHERE s.host_id = h.id ORDER BY s.captured_at DESC, s.id DESC LIMIT 1) last ON true
     WHERE h.id = ANY($1::int[])
       AND CASE WHEN last.id IS NULL THEN h.ansible_facts <> '{}'::jsonb ELSE last.facts <> h.ansible_facts AND h.ansible_facts <> '{}'::jsonb END
     ORDER BY h.id
     FOR UPDATE OF h`,
    [hostIds],
  );
  const hashed = changed.map((host) => ({ host, hash: factsHash(host.facts) })).filter(({ host, hash }) => hash !== host.last_hash);
  if (!hashed.length) return { snapshots: 0, detections: 0, alerts: 0, hostIds: [] };
  // The facts are written from the host rows, locked above, rather than sent back.
  const snapshots = await tx.query<{ id: number; host_id: number }>(
    `INSERT INTO host_fact_snapshots (host_id, job_id, inventory_id, organization_id, facts, facts_hash)
     SELECT h.id, $1, h.inventory_id, i.organization_id, h.ansible_facts, x.hash
     FROM unnest($2::int[], $3::text[]) AS x(id, hash) JOIN hosts h ON h.id = x.id JOIN inventories i ON i.id = h.inventory_id
     RETURNING id, host_id`,
    [jobId, hashed.map((h) => h.host.id), hashed.map((h) => h.hash)],
  );
  const snapshotOf = new Map(snapshots.map((s) => [s.host_id, s.id]));
  const records: Record<string, unknown>[] = [];
  for (const { host } of hashed) {
    if (host.last_id === null || !host.last_facts) continue;
    for (const diff of diffFacts(host.last_facts, host.facts)) records.push(record(host.id, host.last_id, snapshotOf.get(host.id)!, diff));
  }
  if (records.length) {
    await tx.query(
      `INSERT INTO drift_detections (host_id, inventory_id, organization_id, snapshot_before_id, snapshot_after_id, job_id, category, severity, severity_rank, fact_path, summary, diff_type, detail)
       SELECT r.host_id, h.inventory_id, i.organization_id, r.snapshot_before_id, r.snapshot_after_id, $1, r.category, r.severity, r.severity_rank, r.fact_path, r.summary, r.diff_type, r.detail
       FROM jsonb_to_recordset($2::jsonb) AS r(host_id int, snapshot_before_id int, snapshot_after_id int, category text, severity text, severity_rank smallint, fact_path text, summary text, diff_type text, detail jsonb)
       JOIN hosts h ON h.id = r.host_id JOIN inventories i ON i.id = h.inventory_id`,
      [jobId, JSON.stringify(records)],
    );
  }
  const drifted = [...new Set(records.map((r) => r.host_id as number))];
  const alerts = await evaluateAlertRules(tx, drifted);
  return { snapshots: snapshots.length, detections: records.length, alerts, hostIds: snapshots.map((s) => s.host_id) };
}

function record(hostId: number, before: number, after: number, diff: FactDiff): Record<string, unknown> {
  return {
    host_id: hostId,
    snapshot_before_id: before,
    snapshot_after_id: after,
    category: diff.category,
    severity: diff.severity,
    severity_rank: severityRank(diff.severity),
    fact_path: diff.fact_path,
    summary: diff.summary,
    diff_type: diff.diff_type,
    detail: diff.detail,
  };
}
