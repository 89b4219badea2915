import { EDGE_KINDS, EDGE_LABELS } from './workflow-graph';
import { EDGE_COLORS } from './WorkflowCanvas';

export function GraphLegend() {
  return (
    <div className="drover-wf-legend" aria-label="Link colours">
      {EDGE_KINDS.map((k) => (
        <span key={k} style={{ color: EDGE_COLORS[k] }}>
          {EDGE_LABELS[k]}
        </span>
      ))}
    </div>
  );
}
