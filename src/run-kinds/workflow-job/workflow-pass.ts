/**
 * The workflow pass (AWX's WorkflowManager), run by the workflow loop (workflow-loop.ts): pending
 * workflow jobs start (they take no capacity), approvals past their due time fail, and each running
 * workflow job moves on: nodes whose parents decided start their runs, nodes that can no longer run
 * are marked do_not_run, a canceled workflow cancels its runs, and a finished graph finishes its
 * workflow job. Each workflow job is handled in its own transaction with its row locked; everything
 * it needs is in the database, so a pass may be repeated, or cut off and started again, without harm.
 */
import { callerIn, systemContextIn, type RequestContext } from '../../api/context.ts';
import type { Queryable } from '../../db/database.ts';
import type { UnifiedJobRow } from '../../db/tables.ts';
import { parseVariables } from '../../inventory/variables.ts';
import { publishStatusChanges } from '../../live/notices.ts';
import { queueRunNotifications } from '../../resources/notification-templates/queue.ts';
import { queueRunWebhooks } from '../../resources/outbound-webhooks/queue.ts';
import { CANCEL_CHANNEL, finishRun, isActiveStatus } from '../../runs/lifecycle.ts';
import { evaluateCondition } from '../../templating/sandbox.ts';
import { lookAtGraph, type GraphNode } from './workflow-graph.ts';
import { spawnNodes, type Spawn } from './workflow-spawn.ts';
import { GRAPH_COUNTS_SQL, markDoNotRun, markStarted, newWorkflowMemory, readGraphs, rememberGraphs, type Graph, type GraphCounts, type WorkflowMemory, type WorkflowNode } from './graph-read.ts';
import { LaunchMemo } from '../../runs/launch-memo.ts';
import type { RunServices } from '../../runs/run-services.ts';
import type { WebhookEvents, WorkflowNodeLaunch } from '../../runs/run-kind.ts';
import { WORKFLOW_JOB } from './workflow-job-kind-ref.ts';

/** Wakes the workflow loop (workflow-loop.ts): an id names the workflow job to look at, an empty payload asks for a sweep. The triggers of migration 0034 send it too. */
export const WORKFLOWS_CHANNEL = 'drover_workflows';

const isActive = isActiveStatus;

export interface Sweep {
  /** Running workflow jobs something happened to: a node's run ended (a trigger marks them), they just started, or were canceled. */
  attention: number[];
  /** In how many milliseconds the next pending approval falls due (null: none). */
  nextApprovalMs: number | null;
}

/** What does not come with a workflow job's id: pending workflow jobs start, approvals expire, and the workflow jobs waiting for a look are listed. */
export async function sweepWorkflows(services: RunServices): Promise<Sweep> {
  const { db } = services;
  await db.transaction((tx) => startPendingWorkflows(tx, services.runKinds.get(WORKFLOW_JOB.name).webhookEvents));
  await db.transaction((tx) => expireApprovals(tx, services));
  const running = await db.query<{ id: number }>(
    `SELECT id FROM unified_jobs WHERE kind = 'workflow_job' AND status = 'running'
       AND (workflow_attention OR cancel_flag OR id IN (SELECT workflow_job_id FROM workflow_wakeups)) ORDER BY id`,
  );
  // Wake-ups of workflow jobs that ended (their last node's end came after the look that finished them).
  await db.query(
    `DELETE FROM workflow_wakeups w WHERE NOT EXISTS (SELECT 1 FROM unified_jobs j WHERE j.id = w.workflow_job_id AND j.status = 'running')`,
  );
  const [due] = await db.query<{ ms: number | null }>(
    `SELECT (extract(epoch FROM min(approval_expires) - now()) * 1000)::float8 AS ms FROM unified_jobs
     WHERE kind = 'workflow_approval' AND status = 'pending' AND approval_expires IS NOT NULL`,
  );
  return { attention: running.map((r) => r.id), nextApprovalMs: due?.ms ?? null };
}

/**
 * Moves running workflow jobs on, in one transaction, each one something happened to; those another
 * pass holds are left to it. The nodes started share their reads (the same templates, links and
 * hosts read once). One that fails undoes the batch's work: the caller looks at each alone then.
 */
export async function advanceWorkflowJobs(services: RunServices, ids: readonly number[], memory: WorkflowMemory = newWorkflowMemory()): Promise<void> {
  let graphs = new Map<number, Graph>();
  const ended = new Set<number>();
  // A look starts the next nodes at once: it goes before other waiting work on the embedded database.
  await services.db.transaction(async (tx) => {
    // Locked, their wake-ups taken and their flags cleared in one statement, before the graphs are
    // read: a run that ends while this look goes on asks for the next.
    const held = await tx.query<Held>(
      `WITH held AS (
         SELECT * FROM unified_jobs WHERE id = ANY($1::int[]) AND kind = 'workflow_job' AND status = 'running' ORDER BY id FOR UPDATE SKIP LOCKED),
       woken AS (DELETE FROM workflow_wakeups WHERE workflow_job_id IN (SELECT id FROM held) RETURNING workflow_job_id),
       cleared AS (UPDATE unified_jobs SET workflow_attention = false WHERE id IN (SELECT id FROM held WHERE workflow_attention) RETURNING id)
       SELECT held.*, held.id IN (SELECT workflow_job_id FROM woken) AS woken, counts.*,
         creator.username AS creator_username, creator.is_superuser AS creator_is_superuser, creator.is_system_auditor AS creator_is_system_auditor
       FROM held ${GRAPH_COUNTS_SQL} LEFT JOIN users creator ON creator.id = held.created_by_id ORDER BY held.id`,
      [ids],
    );
    const looking = held.filter((j) => j.woken || j.workflow_attention || j.cancel_flag);
    if (!looking.length) return;
    const creators = new Map(looking.map((j) => [j.id, creatorOf(services, j)]));
    const looked: UnifiedJobRow[] = looking.map(({ woken: _w, nodes_started: _s, nodes_skipped: _k, creator_username: _u, creator_is_superuser: _su, creator_is_system_auditor: _sa, ...j }) => j);
    graphs = await readGraphs(tx, looking, memory);
    const starting: Start[] = [];
    const done: { workflowJob: UnifiedJobRow; graph: Graph; failure: string | null }[] = [];
    for (const workflowJob of looked) {
      const graph = graphs.get(workflowJob.id)!;
      if (workflowJob.cancel_flag) {
        ended.add(workflowJob.id);
        await cancelWorkflow(tx, services, workflowJob, graph.nodes);
        continue;
      }
      const look = await lookAtWorkflow(tx, workflowJob, graph);
      for (const node of look.start) starting.push({ workflowJob, ctx: creators.get(workflowJob.id)!, graph, node: node as WorkflowNode });
      if (look.done) done.push({ workflowJob, graph, failure: look.failure });
    }
    await startNodes(tx, services, starting, memory.kinds);
    for (const { workflowJob, graph, failure } of done) {
      ended.add(workflowJob.id);
      const artifacts: Record<string, unknown> = {};
      for (const n of graph.nodes) if (n.job_artifacts && n.job_status === 'successful') Object.assign(artifacts, n.job_artifacts);
      await finishRun(tx, services.runKinds, workflowJob, {
        status: failure ? 'failed' : 'successful',
        explanation: failure ?? '',
        updates: { artifacts: JSON.stringify(artifacts) },
      });
    }
  }, { urgent: true });
  rememberGraphs(memory, graphs, ended);
}

/** A whole pass: the sweep, then every workflow job it found waiting; answers when the next approval falls due. */
export async function workflowPass(services: RunServices): Promise<number | null> {
  const sweep = await sweepWorkflows(services);
  for (const id of sweep.attention) await advanceWorkflowJobs(services, [id]);
  return sweep.nextApprovalMs;
}

/** Pending workflow jobs start, one at a time per template unless it allows simultaneous runs. */
async function startPendingWorkflows(tx: Queryable, webhookEvents: WebhookEvents | undefined): Promise<void> {
  const pending = await tx.query<UnifiedJobRow>(`SELECT * FROM unified_jobs WHERE kind = 'workflow_job' AND status = 'pending' ORDER BY id FOR UPDATE SKIP LOCKED`);
  if (!pending.length) return;
  const busy = new Set((await tx.query<{ t: number }>(
    `SELECT DISTINCT workflow_job_template_id AS t FROM unified_jobs WHERE kind = 'workflow_job' AND status = 'running' AND workflow_job_template_id IS NOT NULL`,
  )).map((r) => r.t));
  const started: UnifiedJobRow[] = [];
  for (const run of pending) {
    const template = run.workflow_job_template_id;
    if (template !== null && !run.allow_simultaneous && busy.has(template)) continue;
    if (template !== null) busy.add(template);
    const [row] = await tx.query<UnifiedJobRow>(`UPDATE unified_jobs SET status = 'running', started = now(), modified = now(), workflow_attention = true WHERE id = $1 RETURNING *`, [run.id]);
    if (template !== null) await tx.query(`UPDATE workflow_job_templates SET status = 'running', current_job_id = $2 WHERE id = $1`, [template, run.id]);
    // Workflow jobs start here, not through markRunning: their "started" notifications too.
    await queueRunNotifications(tx, row, 'started');
    await queueRunWebhooks(tx, row, webhookEvents);
    started.push(row);
  }
  await publishStatusChanges(tx, started);
}

/** Approvals whose time is up fail, timed out (AWX's wording). */
async function expireApprovals(tx: Queryable, services: RunServices): Promise<void> {
  const expired = await tx.query<UnifiedJobRow>(
    `SELECT * FROM unified_jobs WHERE kind = 'workflow_approval' AND status = 'pending' AND approval_expires <= now() FOR UPDATE SKIP LOCKED`,
  );
  for (const approval of expired) {
    await finishRun(tx, services.runKinds, approval, {
      status: 'failed',
      explanation: `The approval node ${approval.name} (${approval.id}) has expired after ${approval.timeout} seconds.`,
      updates: { timed_out: true },
    });
  }
}

/** A node about to start, with its workflow job and graph. */
interface Start {
  workflowJob: UnifiedJobRow;
  /** The workflow job's creator. */
  ctx: RequestContext;
  graph: Graph;
  node: WorkflowNode;
}

/** The template kind of each node about to start, by template id (read for these alone: the view of every template table is costly to join). */
async function templateKinds(tx: Queryable, nodes: readonly GraphNode[], known: Map<number, string>): Promise<Map<number, string>> {
  const unknown = [...new Set(nodes.map((n) => n.unified_job_template_id).filter((id): id is number => id !== null && !known.has(id)))];
  if (unknown.length) {
    const rows = await tx.query<{ id: number; kind: string }>('SELECT id, kind FROM unified_job_templates WHERE id = ANY($1::int[])', [unknown]);
    for (const row of rows) known.set(row.id, row.kind);
  }
  return known;
}

/** A workflow job as a look locks it: with its graph's counts, whether a run's end woke it, and its creator. */
type Held = UnifiedJobRow & GraphCounts & {
  woken: boolean;
  creator_username: string | null;
  creator_is_superuser: boolean | null;
  creator_is_system_auditor: boolean | null;
};

/** The workflow job's creator, as whom its nodes' runs are made (the service itself once the user is gone). */
function creatorOf(services: RunServices, job: Held): RequestContext {
  if (job.created_by_id === null || job.creator_username === null) return systemContextIn(services);
  return callerIn(services, { id: job.created_by_id, username: job.creator_username, isSuperuser: job.creator_is_superuser === true, isSystemAuditor: job.creator_is_system_auditor === true });
}

/** What happens next in one workflow job: its edges' conditions are evaluated, nodes that cannot run are marked; answers what starts and whether it is done. */
async function lookAtWorkflow(tx: Queryable, workflowJob: UnifiedJobRow, { nodes, edges }: Graph) {
  const conditionErrors = new Map<number, Record<string, string>>();
  const look = await lookAtGraph(nodes, edges, async (edge, parent, outcome) => {
    const p = parent as WorkflowNode;
    const job = p.job_id === null ? null : { id: p.job_id, name: p.job_name, status: p.job_status, failed: p.job_failed };
    try {
      return await evaluateCondition(edge.condition, { artifacts: p.job_artifacts ?? {}, status: p.job_status ?? outcome, job }, { organization: workflowJob.organization_id, serviceWork: true });
    } catch (err) {
      conditionErrors.set(edge.child_id, { ...conditionErrors.get(edge.child_id), [String(edge.parent_id)]: err instanceof Error ? err.message : String(err) });
      return false;
    }
  });
  for (const [nodeId, errors] of conditionErrors) {
    await tx.query('UPDATE workflow_job_nodes SET condition_errors = condition_errors || $2::jsonb, modified = now() WHERE id = $1', [nodeId, JSON.stringify(errors)]);
  }
  if (look.doNotRun.length) {
    await tx.query('UPDATE workflow_job_nodes SET do_not_run = true, modified = now() WHERE id = ANY($1::int[])', [look.doNotRun.map((n) => n.id)]);
    markDoNotRun(look.doNotRun);
  }
  return look;
}

/** A node about to start as its launcher reads it: the whole row, with its credentials. */
type NodeToStart = WorkflowNodeLaunch['node'] & { credential_ids: number[] };

/** The rows of the nodes about to start (a look reads only what decides of every node). */
async function nodesToStart(tx: Queryable, ids: readonly number[]): Promise<Map<number, NodeToStart>> {
  const rows = await tx.query<NodeToStart>(
    `SELECT n.*, coalesce(array(SELECT credential_id FROM workflow_job_node_credentials c WHERE c.node_id = n.id ORDER BY credential_id), '{}') AS credential_ids
     FROM workflow_job_nodes n WHERE n.id = ANY($1::int[])`,
    [ids],
  );
  return new Map(rows.map((row) => [row.id, { ...row, extra_data: row.extra_data ?? {} }]));
}

/**
 * Starts the runs of these nodes (of one or more workflow jobs), as their workflow jobs' creators:
 * what they read is shared (templates, their links and hosts, the creators), and the nodes of one
 * template started by one person are stored and queued together.
 */
async function startNodes(tx: Queryable, services: RunServices, starting: readonly Start[], knownKinds: Map<number, string>): Promise<void> {
  if (!starting.length) return;
  const memo = new LaunchMemo();
  const kinds = await templateKinds(tx, starting.map((s) => s.node), knownKinds);
  const rows = await nodesToStart(tx, starting.map((s) => s.node.id));
  const groups = new Map<string, { kind: string; spawns: Spawn[] }>();
  const inherited: { node: number; ancestors: Record<string, unknown> }[] = [];
  for (const { workflowJob, ctx, graph, node } of starting) {
    // Parents' artifacts (set_stats) flow down: the extra vars of the workflow job win over them, as AWX.
    const ancestors: Record<string, unknown> = {};
    for (const e of graph.edges.filter((x) => x.child_id === node.id).sort((a, b) => a.parent_id - b.parent_id)) {
      const parent = graph.byId.get(e.parent_id)!;
      Object.assign(ancestors, parent.ancestor_artifacts ?? {}, parent.job_artifacts ?? {});
    }
    if (Object.keys(ancestors).length) inherited.push({ node: node.id, ancestors });
    const row = rows.get(node.id)!;
    const extraVars = { ...row.extra_data, ...ancestors, ...parseVariables(workflowJob.extra_vars) };
    const kind = kinds.get(node.unified_job_template_id!) ?? '';
    const key = `${workflowJob.created_by_id}:${kind}:${node.unified_job_template_id}`;
    const group = groups.get(key) ?? groups.set(key, { kind, spawns: [] }).get(key)!;
    group.spawns.push({ tx, services, ctx, node: row, workflowJob, extraVars, credentialIds: row.credential_ids, memo });
  }
  if (inherited.length) {
    await tx.query(
      'UPDATE workflow_job_nodes n SET ancestor_artifacts = a.artifacts FROM unnest($1::int[], $2::jsonb[]) AS a(node, artifacts) WHERE n.id = a.node',
      [inherited.map((i) => i.node), inherited.map((i) => JSON.stringify(i.ancestors))],
    );
  }
  const started: { node: number; job: number; ended: boolean }[] = [];
  for (const { kind, spawns } of groups.values()) {
    const jobs = await spawnNodes(spawns, kind);
    for (const [i, { job, ended }] of jobs.entries()) {
      started.push({ node: spawns[i].node.id, job, ended });
    }
  }
  const graphNodes = new Map(starting.map((s) => [s.node.id, s.node]));
  const inheritedBy = new Map(inherited.map((i) => [i.node, i.ancestors]));
  for (const { node, job, ended } of started) markStarted(graphNodes.get(node)!, job, ended, inheritedBy.get(node) ?? null);
  await tx.query(
    'UPDATE workflow_job_nodes n SET job_id = s.job, modified = now() FROM unnest($1::int[], $2::int[]) AS s(node, job) WHERE n.id = s.node',
    [started.map((s) => s.node), started.map((s) => s.job)],
  );
  // A run failed in place ended before its node named it (the trigger could not see it): its workflow job is looked at again.
  const workflowOf = new Map(starting.map((s) => [s.node.id, s.workflowJob.id]));
  const ended = [...new Set(started.filter((s) => s.ended).map((s) => workflowOf.get(s.node)!))];
  if (ended.length) {
    await tx.query(
      `WITH marked AS (UPDATE unified_jobs SET workflow_attention = true WHERE id = ANY($1::int[]) RETURNING id) SELECT pg_notify($2, id::text) FROM marked`,
      [ended, WORKFLOWS_CHANNEL],
    );
  }
}

/** A canceled workflow job cancels its nodes' runs and ends canceled once none is left active. */
async function cancelWorkflow(tx: Queryable, services: RunServices, workflowJob: UnifiedJobRow, nodes: WorkflowNode[]): Promise<void> {
  const active = nodes.filter((n) => n.job_id !== null && isActive(n.job_status)).map((n) => n.job_id!);
  // A run locked elsewhere is ending right now: it counts as still active, and its end asks for another look.
  const lockable = await tx.query<UnifiedJobRow>('SELECT * FROM unified_jobs WHERE id = ANY($1::int[]) ORDER BY id FOR UPDATE SKIP LOCKED', [active]);
  let remaining = active.length - lockable.length;
  for (const run of lockable) {
    if (run.status === 'new' || run.status === 'pending') {
      await finishRun(tx, services.runKinds, run, { status: 'canceled', explanation: 'The workflow job was canceled.' });
      continue;
    }
    remaining++;
    if (run.cancel_flag) continue;
    await tx.query('UPDATE unified_jobs SET cancel_flag = true, modified = now() WHERE id = $1', [run.id]);
    await tx.query('SELECT pg_notify($1, $2)', [CANCEL_CHANNEL, String(run.id)]);
  }
  if (!remaining) await finishRun(tx, services.runKinds, workflowJob, { status: 'canceled', explanation: 'The workflow job was canceled.' });
}
