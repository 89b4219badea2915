import { http, withQuery, type Page } from '../../api/client';
import type { ResourceObject } from '../../api/types';

export const EDGE_KINDS = ['success', 'failure', 'always'] as const;
export type EdgeKind = (typeof EDGE_KINDS)[number];

export const EDGE_LABELS: Record<EdgeKind, string> = { success: 'On success', failure: 'On failure', always: 'Always' };

/** A node of a workflow template's graph. */
export type TemplateNode = ResourceObject<'workflow_job_template_nodes'>;
/** A node of a workflow template's graph or of a workflow job's. */
export type WorkflowNode = ResourceObject<'workflow_job_template_nodes' | 'workflow_job_nodes'>;
/** What naming a node needs: a link's far end may be known by its id alone. */
type NamedNode = { id: number; summary_fields?: WorkflowNode['summary_fields'] };

export interface WorkflowEdge {
  parent: number;
  child: number;
  kind: EdgeKind;
}

/** Every object of a list, following `next` (a workflow's nodes are not paged for the graph). */
export async function fetchAll<T>(url: string): Promise<T[]> {
  const out: T[] = [];
  let next: string | null = withQuery(url, { page_size: 200, order_by: 'id' });
  while (next) {
    const page: Page<T> = await http.get<Page<T>>(next);
    out.push(...page.results);
    next = page.next;
  }
  return out;
}

export function edgesOf(nodes: readonly WorkflowNode[]): WorkflowEdge[] {
  const edges: WorkflowEdge[] = [];
  for (const node of nodes) {
    for (const kind of EDGE_KINDS) {
      for (const child of (node[`${kind}_nodes`] as number[] | undefined) ?? []) edges.push({ parent: node.id, child, kind });
    }
  }
  return edges;
}

/**
 * Column of each node: one more than its deepest parent, so every edge points right. The graph is
 * acyclic (the API refuses cycles), but a guard keeps a bad answer from looping.
 */
export function depths(nodeIds: readonly number[], edges: readonly WorkflowEdge[]): Map<number, number> {
  const parents = new Map<number, number[]>(nodeIds.map((id) => [id, []]));
  for (const e of edges) parents.get(e.child)?.push(e.parent);
  const depth = new Map<number, number>();
  const visiting = new Set<number>();
  const visit = (id: number): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    if (visiting.has(id)) return 0;
    visiting.add(id);
    const own = Math.max(0, ...(parents.get(id) ?? []).filter((p) => parents.has(p)).map((p) => visit(p) + 1));
    visiting.delete(id);
    depth.set(id, own);
    return own;
  };
  for (const id of nodeIds) visit(id);
  return depth;
}

export const NODE_WIDTH = 200;
export const NODE_HEIGHT = 64;
const COLUMN_GAP = 90;
const ROW_GAP = 28;

/** Positions in layers by depth (the start node alone in the first), each layer centred vertically. */
export function layeredLayout(nodeIds: readonly number[], edges: readonly WorkflowEdge[]): { start: { x: number; y: number }; nodes: Map<number, { x: number; y: number }> } {
  const depth = depths(nodeIds, edges);
  const layers: number[][] = [];
  for (const id of nodeIds) (layers[depth.get(id) ?? 0] ??= []).push(id);
  const tallest = Math.max(1, ...layers.map((l) => l?.length ?? 0));
  const height = tallest * (NODE_HEIGHT + ROW_GAP);
  const positions = new Map<number, { x: number; y: number }>();
  layers.forEach((layer, column) => {
    const top = (height - layer.length * (NODE_HEIGHT + ROW_GAP)) / 2;
    layer.forEach((id, row) => positions.set(id, { x: (column + 1) * (NODE_WIDTH + COLUMN_GAP), y: top + row * (NODE_HEIGHT + ROW_GAP) }));
  });
  return { start: { x: NODE_WIDTH / 2, y: (height - NODE_HEIGHT - ROW_GAP) / 2 }, nodes: positions };
}

/** Node kinds a user may add, each with the list its template comes from. */
export const NODE_KINDS = [
  { key: 'job', label: 'Job template', list: '/api/v2/job_templates/' },
  { key: 'workflow_job', label: 'Workflow template', list: '/api/v2/workflow_job_templates/' },
  { key: 'project_update', label: 'Project sync', list: '/api/v2/projects/' },
  { key: 'inventory_update', label: 'Inventory source sync', list: '/api/v2/inventory_sources/' },
  { key: 'workflow_approval', label: 'Approval', list: '' },
] as const;
export type NodeKind = (typeof NODE_KINDS)[number]['key'];

export interface TemplateSummary {
  id: number;
  name: string;
  description?: string;
  unified_job_type?: string;
}

export const templateOf = (node: NamedNode) => node.summary_fields?.unified_job_template as TemplateSummary | undefined;
export const kindOf = (node: NamedNode): NodeKind | undefined => templateOf(node)?.unified_job_type as NodeKind | undefined;
export const kindLabel = (kind: string | undefined) => NODE_KINDS.find((k) => k.key === kind)?.label ?? 'Deleted template';
export const nodeName = (node: NamedNode) => templateOf(node)?.name ?? `Node ${node.id} (no template)`;
