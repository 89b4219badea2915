import { useEffect, useMemo } from 'react';
import { Background, Controls, MarkerType, ReactFlow, ReactFlowProvider, useReactFlow, type Edge, type Node } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import './workflow.css';
import { EDGE_LABELS, layeredLayout, type EdgeKind, type WorkflowEdge } from './workflow-graph';
import { WorkflowNodeCard, type CardData, type CardFields } from './WorkflowNodeCard';

export const START = 'start';

export const EDGE_COLORS: Record<EdgeKind, string> = {
  success: 'var(--pf-t--global--color--status--success--default)',
  failure: 'var(--pf-t--global--color--status--danger--default)',
  always: 'var(--pf-t--global--color--brand--default)',
};

export interface CanvasNode {
  id: number;
  card: CardFields;
}

const nodeTypes = { card: WorkflowNodeCard };

/**
 * A workflow drawn left to right: the start node, then each node in the column of its depth, edges
 * coloured by kind. Nodes are buttons (onActivate) or links, so the graph works from the keyboard.
 */
export function WorkflowCanvas(props: { nodes: CanvasNode[]; edges: WorkflowEdge[]; roots: number[]; onActivate?: (id: number | typeof START) => void; startSelected?: boolean; label: string }) {
  return (
    <ReactFlowProvider>
      <Canvas {...props} />
    </ReactFlowProvider>
  );
}

function Canvas({ nodes, edges, roots, onActivate, startSelected, label }: Parameters<typeof WorkflowCanvas>[0]) {
  const layout = useMemo(() => layeredLayout(nodes.map((n) => n.id), edges), [nodes, edges]);
  const flowNodes: Node<CardData>[] = useMemo(
    () => [
      {
        id: START,
        type: 'card',
        position: layout.start,
        data: { title: 'Start', start: true, selected: startSelected, onActivate: onActivate && (() => onActivate(START)) },
      },
      ...nodes.map((n) => ({
        id: String(n.id),
        type: 'card',
        position: layout.nodes.get(n.id) ?? { x: 0, y: 0 },
        data: { ...n.card, onActivate: onActivate && (() => onActivate(n.id)) },
      })),
    ],
    [nodes, layout, onActivate, startSelected],
  );
  const flowEdges: Edge[] = useMemo(
    () => [
      ...roots.map((id) => ({ id: `start-${id}`, source: START, target: String(id), style: { strokeDasharray: '4 4' } })),
      ...edges.map((e) => ({
        id: `${e.parent}-${e.kind}-${e.child}`,
        source: String(e.parent),
        target: String(e.child),
        label: EDGE_LABELS[e.kind],
        style: { stroke: EDGE_COLORS[e.kind], strokeWidth: 2 },
        labelStyle: { fill: EDGE_COLORS[e.kind], fontWeight: 600 },
        markerEnd: { type: MarkerType.ArrowClosed, color: EDGE_COLORS[e.kind] },
        data: { kind: e.kind },
      })),
    ],
    [edges, roots],
  );
  return (
    <div className="drover-workflow-canvas" role="group" aria-label={label}>
      <ReactFlow
        nodes={flowNodes}
        edges={flowEdges}
        nodeTypes={nodeTypes}
        nodesDraggable={false}
        nodesConnectable={false}
        nodesFocusable={false}
        edgesFocusable={false}
        elementsSelectable={false}
        fitView
        minZoom={0.2}
        proOptions={{ hideAttribution: true }}
        colorMode="system"
      >
        <Background />
        <Controls showInteractive={false} />
        <FitOnChange count={flowNodes.length} />
      </ReactFlow>
    </div>
  );
}

/** Fits the view again when nodes are added or removed (fitView alone fits only the first drawing). */
function FitOnChange({ count }: { count: number }) {
  const flow = useReactFlow();
  useEffect(() => {
    const frame = requestAnimationFrame(() => void flow.fitView({ padding: 0.15, maxZoom: 1.2 }));
    return () => cancelAnimationFrame(frame);
  }, [count, flow]);
  return null;
}
