/**
 * One look at a workflow job's graph (AWX's WorkflowDAG): which nodes may start now, which can no
 * longer run (do_not_run), whether the workflow is done and whether it failed. It reads only what
 * is stored (nodes, edges, the status of each node's run), so looking again gives the same answer.
 */

export interface GraphNode {
  id: number;
  unified_job_template_id: number | null;
  all_parents_must_converge: boolean;
  do_not_run: boolean;
  job_id: number | null;
  job_status: string | null;
}

export interface GraphEdge {
  parent_id: number;
  child_id: number;
  kind: 'success' | 'failure' | 'always';
  condition: string;
}

/** Whether an edge's condition holds for its parent (only asked for edges whose kind matches the parent's outcome). */
export type ConditionCheck = (edge: GraphEdge, parent: GraphNode, outcome: 'successful' | 'failed') => Promise<boolean>;

type State = 'dnr' | 'active' | 'successful' | 'failed' | 'waiting' | 'start';

export interface GraphLook {
  /** Nodes to start now (their template exists). */
  start: GraphNode[];
  /** Nodes that will never run. */
  doNotRun: GraphNode[];
  done: boolean;
  /** AWX's explanation when the workflow failed (a failed node with no failure or always child). */
  failure: string | null;
}

const FAILED = ['failed', 'error', 'canceled'];

export async function lookAtGraph(nodes: readonly GraphNode[], edges: readonly GraphEdge[], holds: ConditionCheck): Promise<GraphLook> {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const parentsOf = new Map<number, GraphEdge[]>();
  for (const e of edges) parentsOf.set(e.child_id, [...(parentsOf.get(e.child_id) ?? []), e]);
  const states = new Map<number, Promise<State>>();
  const look: GraphLook = { start: [], doNotRun: [], done: false, failure: null };

  const taken = async (edge: GraphEdge, parent: GraphNode, outcome: State): Promise<boolean> => {
    if (outcome !== 'successful' && outcome !== 'failed') return false;
    const matches = edge.kind === 'always' || (edge.kind === 'success') === (outcome === 'successful');
    return matches && (!edge.condition || (await holds(edge, parent, outcome)));
  };

  /** What the node's parents decide: start it, never run it, or wait. */
  const readiness = async (node: GraphNode): Promise<'run' | 'dnr' | 'wait'> => {
    const incoming = parentsOf.get(node.id) ?? [];
    if (!incoming.length) return 'run';
    const parents = await Promise.all(incoming.map(async (e) => ({ edge: e, parent: byId.get(e.parent_id)!, state: await stateOf(byId.get(e.parent_id)!) })));
    const finished = (s: State) => s === 'successful' || s === 'failed';
    if (node.all_parents_must_converge) {
      if (parents.some((p) => p.state === 'dnr')) return 'dnr';
      for (const p of parents) if (finished(p.state) && !(await taken(p.edge, p.parent, p.state))) return 'dnr';
      return parents.every((p) => finished(p.state)) ? 'run' : 'wait';
    }
    // ANY: once every parent that runs has finished, the node runs if one of them leads to it.
    if (parents.some((p) => !finished(p.state) && p.state !== 'dnr')) return 'wait';
    for (const p of parents) if (await taken(p.edge, p.parent, p.state)) return 'run';
    return 'dnr';
  };

  const decide = async (node: GraphNode): Promise<State> => {
    if (node.do_not_run) return 'dnr';
    if (node.job_id !== null) {
      if (node.job_status === 'successful') return 'successful';
      return FAILED.includes(node.job_status ?? '') ? 'failed' : 'active';
    }
    const ready = await readiness(node);
    if (ready === 'dnr') {
      look.doNotRun.push(node);
      return 'dnr';
    }
    if (ready === 'wait') return 'waiting';
    // A node whose template was deleted fails where it would have run (AWX).
    if (node.unified_job_template_id === null) return 'failed';
    look.start.push(node);
    return 'start';
  };

  const stateOf = (node: GraphNode): Promise<State> => {
    let state = states.get(node.id);
    if (!state) states.set(node.id, (state = decide(node)));
    return state;
  };

  const all = await Promise.all(nodes.map(async (n) => ({ node: n, state: await stateOf(n) })));
  look.done = all.every(({ state }) => state === 'dnr' || state === 'successful' || state === 'failed');
  if (!look.done) return look;
  const handled = new Set(edges.filter((e) => e.kind !== 'success').map((e) => e.parent_id));
  const unhandled = all.filter(({ node, state }) => state === 'failed' && !handled.has(node.id)).map(({ node }) => node);
  if (unhandled.length) {
    const withJob = unhandled.filter((n) => n.job_id !== null).map((n) => `(${n.id},${n.job_status})`);
    const missing = unhandled.filter((n) => n.job_id === null).map((n) => String(n.id));
    look.failure = `No error handling path for workflow job node(s) [${withJob.join(',')}]. Workflow job node(s) missing unified job template and error handling path [${missing.join(',')}].`;
  }
  return look;
}
