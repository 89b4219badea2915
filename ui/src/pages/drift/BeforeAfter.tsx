import { useMemo } from 'react';
import { Alert } from '@patternfly/react-core';
import type { DriftDetail } from './drift-api';
import { alignLines, type DiffLine } from './line-diff';
import './drift.css';

const TRUNCATION_MARK = '[truncated]';

const absent = (value: unknown) => value === undefined || value === null;

/** A side as lines: pretty JSON, or the cut text as the API left it when it was too long to keep whole. */
function linesOf(value: unknown): string[] {
  if (absent(value)) return [];
  if (typeof value === 'string' && value.endsWith(TRUNCATION_MARK)) return value.split('\n');
  return JSON.stringify(value, null, 2).split('\n');
}

/** A fact's value before and after, side by side, the lines that differ marked on each side. */
export function BeforeAfter({ detail, label }: { detail: DriftDetail; label: string }) {
  const rows = useMemo(() => alignLines(linesOf(detail.before), linesOf(detail.after)), [detail.before, detail.after]);
  return (
    <>
      {detail.truncated && (
        <Alert variant="info" isInline isPlain title="Shortened: a side was too long to keep whole in the record, so the end is cut off. The fact snapshots hold the full values." />
      )}
      <div className="drover-diff-frame">
        <table className="drover-diff" aria-label={label}>
          <colgroup>
            <col className="drover-diff-number" />
            <col className="drover-diff-sign" />
            <col />
            <col className="drover-diff-number" />
            <col className="drover-diff-sign" />
            <col />
          </colgroup>
          <thead>
            <tr>
              <th colSpan={3}>Before{absent(detail.before) ? ' (not present)' : ''}</th>
              <th colSpan={3}>After{absent(detail.after) ? ' (not present)' : ''}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => (
              <tr key={index}>
                <Side line={row.before} change="removed" />
                <Side line={row.after} change="added" />
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function Side({ line, change }: { line?: DiffLine; change: 'removed' | 'added' }) {
  const marked = line?.changed ? change : undefined;
  return (
    <>
      <td className="drover-diff-number" data-change={marked}>{line?.number ?? ''}</td>
      <td className="drover-diff-sign" data-change={marked} aria-hidden="true">{marked === 'removed' ? '−' : marked === 'added' ? '+' : ''}</td>
      <td className="drover-diff-side" data-change={marked} data-side={change === 'removed' ? 'before' : 'after'}>{line?.text ?? ''}</td>
    </>
  );
}
