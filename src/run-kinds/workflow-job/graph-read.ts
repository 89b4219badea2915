/**
 * How the workflow pass reads the graphs of the workflow jobs it looks at, and what its loop
 * remembers of them between looks. A running workflow job's edges never change, and of its nodes
 * only two things change outside the runs' own status: a node gets its run (job_id) or is marked
 * do_not_run, each once and only by a look. So a graph remembered after a look is still right at
 * the next while the counts of nodes with a run and of nodes marked do_not_run are those it had
 * (a look of another service node changes them): then only the nodes whose runs were still active
 * are read again. Anything else reads the whole graph.
 */
import type { Queryable } from '../../db/database.ts';
import { isActiveStatus } from '../../runs/lifecycle.ts';
import type { WorkflowNodeLaunch } from '../../runs/run-kind.ts';
import type { GraphEdge, GraphNode } from './workflow-graph.ts';

/** What a look reads of every node of a graph: what decides the next step, and what flows down (artifacts). */
export type WorkflowNode = GraphNode & Pick<WorkflowNodeLaunch['node'], 'workflow_job_id' | 'ancestor_artifacts'>
  & { job_artifacts: Record<string, unknown> | null; job_name: string | null; job_failed: boolean | null };

export interface Graph {
  nodes: WorkflowNode[];
  edges: GraphEdge[];
  byId: Map<number, WorkflowNode>;
}

/** How many nodes of a graph have a run, and how many are marked do_not_run. */
export interface GraphCounts {
  nodes_started: number;
  nodes_skipped: number;
}

interface RememberedGraph extends Graph, GraphCounts {}

/**
 * What a loop's looks remember of what does not change under them: the template kind of each
 * template id (unified_job_templates.kind: ids are drawn from one sequence for every template
 * table and never reused) and the graphs of running workflow jobs, as their last look left them.
 */
export interface WorkflowMemory {
  kinds: Map<number, string>;
  graphs: Map<number, RememberedGraph>;
}

export const newWorkflowMemory = (): WorkflowMemory => ({ kinds: new Map(), graphs: new Map() });

/** Graphs a loop remembers, at most (the oldest are read whole again when looked at). */
const REMEMBERED_GRAPHS = 1_000;

/** The counts a look compares, read with the workflow jobs it locks (a LATERAL join on `held`). */
export const GRAPH_COUNTS_SQL = `LEFT JOIN LATERAL (
  SELECT count(job_id)::int AS nodes_started, (count(*) FILTER (WHERE do_not_run))::int AS nodes_skipped
  FROM workflow_job_nodes WHERE workflow_job_id = held.id) counts ON true`;

const NODE_COLUMNS = `n.id, n.workflow_job_id, n.unified_job_template_id, n.all_parents_must_converge, n.do_not_run, n.job_id, n.ancestor_artifacts,
  j.status AS job_status, j.artifacts AS job_artifacts, j.name AS job_name, j.failed AS job_failed
  FROM workflow_job_nodes n LEFT JOIN unified_jobs j ON j.id = n.job_id`;

const stillActive = (n: WorkflowNode) => n.job_id !== null && (n.job_status === null || isActiveStatus(n.job_status));

/** The graphs of these workflow jobs, by id: remembered ones with their active nodes read again, the others whole. */
export async function readGraphs(tx: Queryable, jobs: readonly ({ id: number } & GraphCounts)[], memory: WorkflowMemory): Promise<Map<number, Graph>> {
  const graphs = new Map<number, Graph>();
  const whole: number[] = [];
  for (const job of jobs) {
    const known = memory.graphs.get(job.id);
    // Taken out while looked at: put back once the look has committed (rememberGraphs).
    memory.graphs.delete(job.id);
    if (known && known.nodes_started === job.nodes_started && known.nodes_skipped === job.nodes_skipped) graphs.set(job.id, known);
    else whole.push(job.id);
  }
  const active = [...graphs.values()].flatMap((g) => g.nodes.filter(stillActive).map((n) => n.id));
  if (active.length) {
    for (const row of await tx.query<WorkflowNode>(`SELECT ${NODE_COLUMNS} WHERE n.id = ANY($1::int[])`, [active])) {
      Object.assign(graphs.get(row.workflow_job_id)!.byId.get(row.id)!, row);
    }
  }
  if (!whole.length) return graphs;
  const nodes = await tx.query<WorkflowNode>(`SELECT ${NODE_COLUMNS} WHERE n.workflow_job_id = ANY($1::int[]) ORDER BY n.id`, [whole]);
  const edges = await tx.query<GraphEdge & { workflow_job_id: number }>(
    `SELECT n.workflow_job_id, e.parent_id, e.child_id, e.kind, e.condition FROM workflow_job_node_edges e JOIN workflow_job_nodes n ON n.id = e.parent_id
     WHERE n.workflow_job_id = ANY($1::int[])`,
    [whole],
  );
  for (const id of whole) graphs.set(id, { nodes: [], edges: [], byId: new Map() });
  for (const node of nodes) {
    const graph = graphs.get(node.workflow_job_id)!;
    graph.nodes.push(node);
    graph.byId.set(node.id, node);
  }
  for (const { workflow_job_id: id, ...edge } of edges) graphs.get(id)!.edges.push(edge);
  return graphs;
}

/** What a look did to a node, mirrored on the graph it read. */
export const markDoNotRun = (nodes: readonly GraphNode[]) => {
  for (const node of nodes) node.do_not_run = true;
};

export const markStarted = (node: WorkflowNode, job: number, ended: boolean, ancestors: Record<string, unknown> | null) => {
  Object.assign(node, { job_id: job, job_status: ended ? 'failed' : 'pending', job_failed: ended, job_artifacts: null, job_name: null });
  if (ancestors) node.ancestor_artifacts = ancestors;
};

/** After a look committed: the graphs of workflow jobs still running are remembered as it left them. */
export function rememberGraphs(memory: WorkflowMemory, graphs: ReadonlyMap<number, Graph>, ended: ReadonlySet<number>): void {
  for (const [id, graph] of graphs) {
    if (ended.has(id)) continue;
    const nodes_started = graph.nodes.filter((n) => n.job_id !== null).length;
    const nodes_skipped = graph.nodes.filter((n) => n.do_not_run).length;
    memory.graphs.set(id, { ...graph, nodes_started, nodes_skipped });
  }
  for (const id of memory.graphs.keys()) {
    if (memory.graphs.size <= REMEMBERED_GRAPHS) break;
    memory.graphs.delete(id);
  }
}
