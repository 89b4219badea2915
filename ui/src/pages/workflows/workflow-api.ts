/** The calls the editor makes: each change is saved as it is made, as AWX's own API calls. */
import { http } from '../../api/client';
import type { ApiBody } from '../../api/types';
import type { EdgeKind, NodeKind, TemplateNode } from './workflow-graph';

type NodeEdit = ApiBody<'/api/v2/workflow_job_template_nodes/{id}/', 'patch'>;

const NODES = '/api/v2/workflow_job_template_nodes/';

export interface NodeChoice {
  kind: NodeKind;
  /** The template run by the node (not for an approval). */
  template: number | null;
  approval: { name: string; description: string; timeout: number };
  converge: boolean;
}

/** Makes the node an approval node, or points it at its template. */
async function applyTemplate(node: TemplateNode, choice: NodeChoice): Promise<void> {
  if (choice.kind === 'workflow_approval') {
    await http.post(`${NODES}${node.id}/create_approval_template/`, choice.approval);
  }
}

/** A node under `parent` by `edge`, or a root node when there is no parent. */
export async function addNode(workflowId: number, choice: NodeChoice, parent: { id: number; edge: EdgeKind } | null): Promise<TemplateNode> {
  const fields = { unified_job_template: choice.kind === 'workflow_approval' ? null : choice.template, all_parents_must_converge: choice.converge } satisfies NodeEdit;
  const node = parent
    ? await http.post<TemplateNode>(`${NODES}${parent.id}/${parent.edge}_nodes/`, fields)
    : await http.post<TemplateNode>(NODES, { ...fields, workflow_job_template: workflowId } satisfies ApiBody<typeof NODES, 'post'>);
  try {
    await applyTemplate(node, choice);
  } catch (err) {
    // A node without its approval would run nothing: take it back, then report why.
    await http.delete(node.url).catch(() => undefined);
    throw err;
  }
  return node;
}

export async function editNode(node: TemplateNode, choice: NodeChoice): Promise<void> {
  if (choice.kind === 'workflow_approval') {
    await http.patch(node.url, { all_parents_must_converge: choice.converge } satisfies NodeEdit);
    await applyTemplate(node, choice);
  } else {
    await http.patch(node.url, { unified_job_template: choice.template, all_parents_must_converge: choice.converge } satisfies NodeEdit);
  }
}

export const linkNodes = (parent: number, child: number, kind: EdgeKind) => http.post(`${NODES}${parent}/${kind}_nodes/`, { id: child });
export const unlinkNodes = (parent: number, child: number, kind: EdgeKind) => http.post(`${NODES}${parent}/${kind}_nodes/`, { id: child, disassociate: true });
export const deleteNode = (node: TemplateNode) => http.delete(node.url);
