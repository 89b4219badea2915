import { Handle, Position, type NodeProps, type Node } from '@xyflow/react';
import { Link } from 'react-router';
import { NODE_HEIGHT, NODE_WIDTH } from './workflow-graph';

export interface CardFields {
  title: string;
  subtitle?: string;
  /** A run's status: colours the card's border. */
  status?: string;
  start?: boolean;
  selected?: boolean;
  /** Dimmed: a step a workflow job will not run. */
  muted?: boolean;
  /** The card links there (a node's run) instead of being a button. */
  href?: string;
  /** Shown while linking: the card is a target to click. */
  target?: boolean;
}

export type CardData = CardFields & { onActivate?: () => void } & Record<string, unknown>;

/** One node of the graph: a labelled button or link, with invisible handles for the edges. */
export function WorkflowNodeCard({ data }: NodeProps<Node<CardData>>) {
  const classes = ['drover-wf-node', 'nodrag', 'nopan', data.start && 'is-start', data.selected && 'is-selected', data.muted && 'is-muted', data.target && 'is-target', data.status && `status-${data.status}`]
    .filter(Boolean)
    .join(' ');
  const body = (
    <>
      <span className="drover-wf-node-title">{data.title}</span>
      {data.subtitle ? <span className="drover-wf-node-subtitle">{data.subtitle}</span> : null}
    </>
  );
  const label = [data.title, data.subtitle].filter(Boolean).join(', ');
  return (
    <div style={{ width: data.start ? NODE_HEIGHT * 1.5 : NODE_WIDTH, height: NODE_HEIGHT }} data-status={data.status}>
      {!data.start && <Handle type="target" position={Position.Left} isConnectable={false} />}
      {data.href ? (
        <Link className={classes} to={data.href} aria-label={label}>
          {body}
        </Link>
      ) : data.onActivate ? (
        <button type="button" className={classes} onClick={data.onActivate} aria-pressed={data.selected ? true : false} aria-label={label}>
          {body}
        </button>
      ) : (
        <div className={classes}>{body}</div>
      )}
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </div>
  );
}
