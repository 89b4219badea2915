import type { RequestContext } from '../api/context.ts';
import type { Tracing } from '../telemetry/tracing.ts';
import type { Database, Queryable } from '../db/database.ts';
import type { UnifiedJobRow } from '../db/tables.ts';
import type { RunKinds } from '../runs/run-kind.ts';
import { explanationAfterWarnings, FINAL_STATUSES, finishRun, UNSUCCESSFUL_STATUSES, wakeDispatchers } from '../runs/lifecycle.ts';
import { CapacityModel } from './capacity-model.ts';
import { SCHEDULER_LOCK } from './scheduler-lock.ts';
import { heartbeatTiming } from './heartbeat-timing.ts';
import { processDependencies } from './dependencies.ts';
import { blockedBy, isWaitingExplanation, noInstances, noNodeHoldsDirectory, NOT_ENOUGH_CAPACITY, previousTaskFailed } from './explanations.ts';
import { preferredGroups } from './preferred-groups.ts';
import { publishStatusChanges } from '../live/notices.ts';

const PASS_LIMIT = 2_000;

/** What a pass reads of each pending run. */
type PendingRun = Pick<
  UnifiedJobRow,
  | 'id' | 'kind' | 'name' | 'unified_job_template_id' | 'job_template_id' | 'project_id' | 'inventory_id' | 'organization_id'
  | 'allow_simultaneous' | 'task_impact' | 'forks' | 'job_explanation' | 'launch_warnings' | 'dependencies_processed'
>;

/** What a pass answers of each run it moved to waiting. */
type MovedRun = Pick<UnifiedJobRow, 'id' | 'kind' | 'status' | 'execution_node' | 'unified_job_template_id'>;

/** An open project or inventory update, which runs queued after it wait for. */
type OpenUpdate = Pick<UnifiedJobRow, 'id' | 'kind' | 'project_id' | 'inventory_id' | 'status'>;

export interface PassResult {
  /** Runs moved to waiting, with the node each was given. */
  moved: MovedRun[];
  /** Runs failed because a dependency failed. */
  failed: UnifiedJobRow[];
  /** More pending runs after this pass's share: pass `next` as `after` to go on. */
  more: boolean;
  next: number;
  /** Another node's pass was under way: this one did nothing. */
  skipped: boolean;
}

interface Dependency {
  id: number;
  kind: string;
  name: string;
  status: string;
}

async function dependenciesOf(tx: Queryable, ids: number[]): Promise<Map<number, Dependency[]>> {
  const rows = await tx.query<Dependency & { job: number }>(
    `SELECT d.unified_job_id AS job, u.id, u.kind, u.name, u.status FROM unified_job_dependencies d
     JOIN unified_jobs u ON u.id = d.dependency_id WHERE d.unified_job_id = ANY($1::int[]) ORDER BY u.id`,
    [ids],
  );
  const result = new Map<number, Dependency[]>();
  for (const r of rows) result.set(r.job, [...(result.get(r.job) ?? []), r]);
  return result;
}

/** What may block a pending run: busy templates (waiting/running) and open updates (of projects, inventories). */
async function blockers(tx: Queryable, kinds: RunKinds) {
  const busyTemplates = new Map<string, number>();
  for (const r of await tx.query<{ kind: string; template: number; id: number }>(
    `SELECT kind, unified_job_template_id AS template, min(id) AS id FROM unified_jobs
     WHERE status IN ('waiting', 'running') AND unified_job_template_id IS NOT NULL GROUP BY kind, unified_job_template_id`,
  )) busyTemplates.set(`${r.kind}:${r.template}`, r.id);
  const updates = await tx.query<OpenUpdate>(
    `SELECT id, kind, project_id, inventory_id, status FROM unified_jobs
     WHERE kind = ANY($1::text[]) AND status IN ('pending', 'waiting', 'running') ORDER BY id`,
    [kinds.updateKinds().map((k) => k.name)],
  );
  return { busyTemplates, updates };
}

/**
 * One task manager pass over up to PASS_LIMIT pending runs with ids above `after` (AWX's dependency and task managers): pending runs, oldest first, get
 * their dependency updates, fail when one of those failed, wait behind their template's running
 * job (unless allow_simultaneous) and behind open updates of their project or inventory, and
 * otherwise move to waiting on the instance the capacity rules pick. Each node then starts the
 * waiting runs it was given.
 */
export async function schedulePass(db: Database, kinds: RunKinds, system: RequestContext, after = 0, tracing?: Tracing): Promise<PassResult> {
  if (!tracing) return passIn(db, kinds, system, after);
  return tracing.inSpan('task manager pass', { 'drover.task_manager.after': after }, async (span) => {
    const result = await passIn(db, kinds, system, after);
    span.set({ 'drover.task_manager.moved': result.moved.length, 'drover.task_manager.failed': result.failed.length, 'drover.task_manager.skipped': result.skipped, 'drover.task_manager.more': result.more });
    return result;
  });
}

async function passIn(db: Database, kinds: RunKinds, system: RequestContext, after: number): Promise<PassResult> {
  return db.transaction(async (tx) => {
    const [{ locked }] = await tx.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS locked', [SCHEDULER_LOCK]);
    const result: PassResult = { moved: [], failed: [], more: false, next: after, skipped: !locked };
    if (!locked) return result;
    const pending = await tx.query<PendingRun>(
      `SELECT id, kind, name, unified_job_template_id, job_template_id, project_id, inventory_id, organization_id, allow_simultaneous,
              task_impact, forks, job_explanation, launch_warnings, dependencies_processed
       FROM unified_jobs WHERE status = 'pending' AND kind = ANY($1::text[]) AND id > $3 ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [kinds.placedNames(), PASS_LIMIT + 1, after],
    );
    if (pending.length > PASS_LIMIT) {
      pending.length = PASS_LIMIT;
      result.more = true;
    }
    if (!pending.length) return result;
    result.next = pending[pending.length - 1].id;
    await processDependencies(tx, kinds, system, pending.filter((r) => kinds.get(r.kind).waitsFor?.launches && !r.dependencies_processed));
    const dependencies = await dependenciesOf(tx, pending.map((r) => r.id));
    const { busyTemplates, updates } = await blockers(tx, kinds);
    const groups = await preferredGroups(tx, kinds, pending);
    const capacity = await CapacityModel.load(tx, heartbeatTiming(system.service.settings).graceSeconds);
    const manual = await manualProjectNodes(tx, pending);

    const moves: Array<{ id: number; node: string; group: number }> = [];
    const explanations = new Map<number, string>();
    for (const run of pending) {
      const failedDependency = dependencies.get(run.id)?.find((d) => UNSUCCESSFUL_STATUSES.includes(d.status));
      if (failedDependency) {
        result.failed.push(await finishRun(tx, kinds, run, { status: 'failed', explanation: previousTaskFailed(failedDependency) }));
        continue;
      }
      const blocker = blockerOf(kinds, run, dependencies.get(run.id) ?? [], busyTemplates, updates);
      if (blocker) {
        explanations.set(run.id, blocker);
        continue;
      }
      const preferred = groups.get(run.id) ?? [];
      const onExecutionNodes = kinds.get(run.kind).onExecutionNodes === true;
      const holders = run.project_id === null ? undefined : manual.get(run.project_id);
      const placement = capacity.place({ onExecutionNodes, impact: run.task_impact, forks: run.forks, groupIds: preferred, hostnames: holders?.nodes });
      if (!placement) {
        const why = holders && !holders.nodes.size ? noNodeHoldsDirectory(holders.localPath)
          : capacity.hasEligibleInstance(onExecutionNodes, preferred) ? NOT_ENOUGH_CAPACITY : noInstances(capacity.groupNames(preferred));
        explanations.set(run.id, why);
        continue;
      }
      if (run.unified_job_template_id !== null && !run.allow_simultaneous) busyTemplates.set(`${run.kind}:${run.unified_job_template_id}`, run.id);
      moves.push({ id: run.id, node: placement.hostname, group: placement.groupId });
    }
    await storeExplanations(tx, pending, explanations);
    if (moves.length) {
      const byId = new Map(pending.map((r) => [r.id, r]));
      result.moved = await tx.query<MovedRun>(
        `UPDATE unified_jobs u SET status = 'waiting', execution_node = m.node, controller_node = m.node, instance_group_id = m.grp,
           job_explanation = m.explanation, modified = now()
         FROM unnest($1::int[], $2::text[], $3::int[], $4::text[]) AS m(id, node, grp, explanation) WHERE u.id = m.id
         RETURNING u.id, u.kind, u.status, u.execution_node, u.unified_job_template_id`,
        [moves.map((m) => m.id), moves.map((m) => m.node), moves.map((m) => m.group), moves.map((m) => explanationOnceWaiting(byId.get(m.id)!))],
      );
      await publishStatusChanges(tx, result.moved);
      // The nodes given runs (other nodes too) start them once this commits.
      await wakeDispatchers(tx);
    }
    return result;
  });
}

/** For the pending runs of manual projects: the project's directory and the nodes that hold it (instances.manual_project_dirs). */
async function manualProjectNodes(tx: Queryable, pending: PendingRun[]): Promise<Map<number, { localPath: string; nodes: Set<string> }>> {
  const ids = [...new Set(pending.map((r) => r.project_id).filter((id): id is number => id !== null))];
  const found = new Map<number, { localPath: string; nodes: Set<string> }>();
  if (!ids.length) return found;
  const rows = await tx.query<{ id: number; local_path: string; nodes: string[] }>(
    `SELECT p.id, p.local_path, COALESCE(array_agg(i.hostname) FILTER (WHERE i.hostname IS NOT NULL), '{}') AS nodes
     FROM projects p LEFT JOIN instances i ON i.manual_project_dirs ? p.local_path
     WHERE p.id = ANY($1::int[]) AND p.scm_type = '' GROUP BY p.id, p.local_path`,
    [ids],
  );
  for (const row of rows) found.set(row.id, { localPath: row.local_path, nodes: new Set(row.nodes) });
  return found;
}

function blockerOf(kinds: RunKinds, run: PendingRun, dependencies: Dependency[], busyTemplates: Map<string, number>, updates: OpenUpdate[]): string | null {
  const open = dependencies.find((d) => !(FINAL_STATUSES as readonly string[]).includes(d.status));
  if (open) return blockedBy(open.kind, open.id);
  if (run.unified_job_template_id !== null && !run.allow_simultaneous) {
    const busy = busyTemplates.get(`${run.kind}:${run.unified_job_template_id}`);
    if (busy !== undefined && busy !== run.id) return blockedBy(run.kind, busy);
  }
  const waitsFor = kinds.get(run.kind).waitsFor?.updates;
  if (!waitsFor) return null;
  // Updates queued before this run (or already under way) finish first: it runs on what they bring.
  const update = updates.find((u) => {
    if (!waitsFor.includes(u.kind) || (u.status === 'pending' && u.id >= run.id)) return false;
    const of = kinds.get(u.kind).update!.of;
    return u[of] === run[of];
  });
  return update ? blockedBy(update.kind, update.id) : null;
}

/** A pending run's explanation: what its launch warned about, then why it waits. */
const explained = (run: PendingRun, why: string) => explanationAfterWarnings(run.launch_warnings, why);

/** Once placed, why it waited is gone; what its launch warned about stays, and so does anything else. */
function explanationOnceWaiting(run: PendingRun): string {
  const own = run.launch_warnings && run.job_explanation.startsWith(run.launch_warnings) ? run.job_explanation.slice(run.launch_warnings.length).replace(/^\n/, '') : run.job_explanation;
  return !own || own === NOT_ENOUGH_CAPACITY || isWaitingExplanation(own) ? run.launch_warnings : run.job_explanation;
}

/** Writes only explanations that changed, in one statement. */
async function storeExplanations(tx: Queryable, pending: PendingRun[], explanations: Map<number, string>): Promise<void> {
  const changed = pending.filter((r) => explanations.has(r.id) && explained(r, explanations.get(r.id)!) !== r.job_explanation);
  if (!changed.length) return;
  await tx.query(
    `UPDATE unified_jobs u SET job_explanation = e.text FROM unnest($1::int[], $2::text[]) AS e(id, text) WHERE u.id = e.id`,
    [changed.map((r) => r.id), changed.map((r) => explained(r, explanations.get(r.id)!))],
  );
}
