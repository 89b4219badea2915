import { useCallback, useMemo, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, AlertActionLink, Button, Flex, FlexItem, Grid, GridItem, Modal, ModalBody, ModalFooter, ModalHeader } from '@patternfly/react-core';
import { PlusCircleIcon } from '@patternfly/react-icons';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { WorkflowCanvas, START, type CanvasNode } from './WorkflowCanvas';
import { NodeModal, type NodePlacement } from './NodeModal';
import { LinkModal } from './LinkModal';
import { SelectionPanel } from './SelectionPanel';
import { NODE_PROMPT_LISTS } from './NodePromptsDetail';
import { GraphLegend } from './GraphLegend';
import { addNode, deleteNode, editNode, linkNodes, unlinkNodes, type NodeChoice } from './workflow-api';
import { edgeErrorMessage } from './edge-error';
import { edgesOf, fetchAll, kindLabel, kindOf, nodeName, type EdgeKind, type TemplateNode, type WorkflowEdge } from './workflow-graph';
import type { ResourceObject } from '../../api/types';

type Selection = number | typeof START | null;
type Dialog = { mode: 'add'; parent: number | null } | { mode: 'edit'; node: TemplateNode } | { mode: 'delete'; node: TemplateNode } | { mode: 'link'; from: number; to: number } | null;

/**
 * The Visualizer tab of a workflow template: its graph, and for those who may edit it, adding,
 * editing, linking, unlinking and deleting nodes. Each change is saved by the API as it is made, so
 * the graph always shows what the workflow would run and the API's refusals (a cycle) come at once.
 */
export default function WorkflowEditor({ object }: { object: ResourceObject<'workflow_job_templates'> }) {
  const canEdit = object.summary_fields?.user_capabilities?.edit === true;
  const queryClient = useQueryClient();
  const queryKey = useMemo(() => ['workflow-graph', object.related.workflow_nodes], [object.related.workflow_nodes]);
  const nodes = useQuery({ queryKey, queryFn: () => fetchAll<TemplateNode>(object.related.workflow_nodes) });
  const [selected, setSelected] = useState<Selection>(null);
  const [linkingFrom, setLinkingFrom] = useState<number | null>(null);
  const [dialog, setDialog] = useState<Dialog>(null);
  const [error, setError] = useState<unknown>(null);

  const list = useMemo(() => nodes.data ?? [], [nodes.data]);
  const edges = useMemo(() => edgesOf(list), [list]);
  const byId = useMemo(() => new Map(list.map((n) => [n.id, n])), [list]);
  const roots = useMemo(() => list.filter((n) => !edges.some((e) => e.child === n.id)).map((n) => n.id), [list, edges]);

  const reload = () => queryClient.invalidateQueries({ queryKey });
  const saved = async () => {
    setDialog(null);
    await reload();
    // The nodes' saved credentials, labels and instance groups are read apart from the nodes.
    await queryClient.invalidateQueries({ predicate: (q) => q.queryKey[1] === NODE_PROMPT_LISTS });
  };

  const onActivate = useCallback(
    (id: number | typeof START) => {
      if (linkingFrom !== null && id !== START) {
        if (id !== linkingFrom) setDialog({ mode: 'link', from: linkingFrom, to: id });
        return;
      }
      setSelected(id);
    },
    [linkingFrom],
  );

  const canvasNodes: CanvasNode[] = useMemo(
    () =>
      list.map((n) => ({
        id: n.id,
        card: {
          title: nodeName(n),
          subtitle: kindLabel(kindOf(n)) + (n.all_parents_must_converge ? ' · all parents' : ''),
          selected: selected === n.id || linkingFrom === n.id,
          target: linkingFrom !== null && linkingFrom !== n.id,
        },
      })),
    [list, selected, linkingFrom],
  );

  const run = async (action: () => Promise<unknown>) => {
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(edgeErrorMessage(err));
      setDialog(null);
    } finally {
      await reload();
    }
  };

  if (nodes.isPending) return <Loading label="Loading the workflow" />;
  if (nodes.error) return <ErrorAlert error={nodes.error} title="Could not load the workflow's nodes" />;

  const selectedNode = typeof selected === 'number' ? byId.get(selected) : undefined;
  const submitNode = (node?: TemplateNode) => async (choice: NodeChoice, placement: NodePlacement) => {
    if (node) await editNode(node, choice);
    else {
      const made = await addNode(object.id, choice, placement.parent === null ? null : { id: placement.parent, edge: placement.edge });
      setSelected(made.id);
    }
    await saved();
  };

  return (
    <Flex direction={{ default: 'column' }} spaceItems={{ default: 'spaceItemsMd' }}>
      <Flex justifyContent={{ default: 'justifyContentSpaceBetween' }} alignItems={{ default: 'alignItemsCenter' }}>
        <FlexItem>
          <GraphLegend />
        </FlexItem>
        {canEdit && (
          <FlexItem>
            <Button icon={<PlusCircleIcon />} onClick={() => setDialog({ mode: 'add', parent: typeof selected === 'number' ? selected : null })}>
              Add node
            </Button>
          </FlexItem>
        )}
      </Flex>
      {!canEdit && <Alert variant="info" isInline isPlain title="You may view this workflow but not change it." />}
      {linkingFrom !== null && (
        <Alert
          variant="info"
          isInline
          title={`Choose the node to run after ${nodeName(byId.get(linkingFrom) ?? { id: linkingFrom })}.`}
          actionLinks={<AlertActionLink onClick={() => setLinkingFrom(null)}>Cancel linking</AlertActionLink>}
        />
      )}
      <ErrorAlert error={error} title="The change was not saved" />
      <Grid hasGutter>
        <GridItem md={8} lg={9}>
          <WorkflowCanvas label={`Graph of ${String(object.name)}`} nodes={canvasNodes} edges={edges} roots={roots} onActivate={onActivate} startSelected={selected === START} />
        </GridItem>
        <GridItem md={4} lg={3}>
          <SelectionPanel
            selection={selected === START ? START : selectedNode}
            empty={list.length === 0}
            byId={byId}
            edges={edges}
            canEdit={canEdit}
            onAddAfter={(parent) => setDialog({ mode: 'add', parent })}
            onEdit={(node) => setDialog({ mode: 'edit', node })}
            onDelete={(node) => setDialog({ mode: 'delete', node })}
            onLink={(node) => setLinkingFrom(node.id)}
            onUnlink={(edge: WorkflowEdge) => run(() => unlinkNodes(edge.parent, edge.child, edge.kind))}
          />
        </GridItem>
      </Grid>
      {(dialog?.mode === 'add' || dialog?.mode === 'edit') && (
        <NodeModal
          node={dialog.mode === 'edit' ? dialog.node : undefined}
          nodes={list}
          initialParent={dialog.mode === 'add' ? dialog.parent : null}
          workflowId={object.id}
          onSubmit={submitNode(dialog.mode === 'edit' ? dialog.node : undefined)}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.mode === 'link' && (
        <LinkModal
          from={nodeName(byId.get(dialog.from)!)}
          to={nodeName(byId.get(dialog.to)!)}
          onSubmit={async (kind: EdgeKind) => {
            await linkNodes(dialog.from, dialog.to, kind);
            setLinkingFrom(null);
            await saved();
          }}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.mode === 'delete' && (
        <DeleteNodeModal
          node={dialog.node}
          onConfirm={() =>
            run(async () => {
              await deleteNode(dialog.node);
              setSelected(null);
              setDialog(null);
            })
          }
          onClose={() => setDialog(null)}
        />
      )}
    </Flex>
  );
}

function DeleteNodeModal({ node, onConfirm, onClose }: { node: TemplateNode; onConfirm: () => void; onClose: () => void }) {
  return (
    <Modal isOpen onClose={onClose} variant="small" aria-labelledby="delete-node-title">
      <ModalHeader title={`Delete ${nodeName(node)}?`} labelId="delete-node-title" titleIconVariant="warning" />
      <ModalBody>The node and its links are removed from the workflow. Nodes after it stay, and run from the start unless other links lead to them.</ModalBody>
      <ModalFooter>
        <Button variant="danger" onClick={onConfirm}>Delete node</Button>
        <Button variant="link" onClick={onClose}>Cancel</Button>
      </ModalFooter>
    </Modal>
  );
}
