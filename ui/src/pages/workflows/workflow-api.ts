/** The calls the editor makes: each change is saved as it is made, as AWX's own API calls. */
import { http } from '../../api/client';
import type { ApiBody } from '../../api/types';
import { syncChosen, type Chosen } from '../templates/form/related-lists';
import type { RelatedList } from '../templates/form/template-layout';
import type { EdgeKind, NodeKind, TemplateNode } from './workflow-graph';

type NodeEdit = ApiBody<'/api/v2/workflow_job_template_nodes/{id}/', 'patch'>;

const NODES = '/api/v2/workflow_job_template_nodes/';

export interface NodeChoice {
  kind: NodeKind;
  /** The template run by the node (not for an approval). */
  template: number | null;
  approval: { name: string; description: string; timeout: number };
  converge: boolean;
  /** What the node launches its template with, when its template takes prompts. */
  config?: NodeConfig;
}

/** A node's prompts as saved: its prompt fields and extra_data, and its related lists from `before` to `after`. */
export interface NodeConfig {
  fields: Record<string, unknown>;
  extra: Record<string, unknown>;
  lists: RelatedList[];
  before: Chosen;
  after: Chosen;
  organization: number | null;
}

const configFields = (config: NodeConfig | undefined) => (config ? { ...config.fields, extra_data: config.extra } : {});

/** The node's credentials, labels and instance groups, as AWX's UI saves them after the node. */
const syncConfig = (node: TemplateNode, config: NodeConfig | undefined) =>
  config ? syncChosen(node.related as Record<string, string>, config.lists, config.before, config.after, config.organization) : Promise.resolve();

/** Makes the node an approval node, or points it at its template. */
async function applyTemplate(node: TemplateNode, choice: NodeChoice): Promise<void> {
  if (choice.kind === 'workflow_approval') {
    await http.post(`${NODES}${node.id}/create_approval_template/`, choice.approval);
  }
}

/** A node under `parent` by `edge`, or a root node when there is no parent. */
export async function addNode(workflowId: number, choice: NodeChoice, parent: { id: number; edge: EdgeKind } | null): Promise<TemplateNode> {
  const fields = { unified_job_template: choice.kind === 'workflow_approval' ? null : choice.template, all_parents_must_converge: choice.converge, ...configFields(choice.config) } satisfies NodeEdit;
  const node = parent
    ? await http.post<TemplateNode>(`${NODES}${parent.id}/${parent.edge}_nodes/`, fields)
    : await http.post<TemplateNode>(NODES, { ...fields, workflow_job_template: workflowId } satisfies ApiBody<typeof NODES, 'post'>);
  try {
    await applyTemplate(node, choice);
    await syncConfig(node, choice.config);
  } catch (err) {
    // A node without its approval, or without the credentials it was given, would not run as asked: take it back, then report why.
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
    await http.patch(node.url, { unified_job_template: choice.template, all_parents_must_converge: choice.converge, ...configFields(choice.config) } satisfies NodeEdit);
    await syncConfig(node, choice.config);
  }
}

export const linkNodes = (parent: number, child: number, kind: EdgeKind) => http.post(`${NODES}${parent}/${kind}_nodes/`, { id: child });
export const unlinkNodes = (parent: number, child: number, kind: EdgeKind) => http.post(`${NODES}${parent}/${kind}_nodes/`, { id: child, disassociate: true });
export const deleteNode = (node: TemplateNode) => http.delete(node.url);
