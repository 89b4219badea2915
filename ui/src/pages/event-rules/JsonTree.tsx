import type { ReactNode } from 'react';
import './event-rules.css';

/** Past this much pretty-printed text, the value is shown as plain text: a tree of a 1 MiB payload is slow to draw. */
const TREE_LIMIT = 200_000;
/** Levels open at first; deeper objects and arrays start folded. */
const OPEN_DEPTH = 3;

const isBranch = (value: unknown): value is object => !!value && typeof value === 'object';

function Node({ name, value, depth, last }: { name?: string; value: unknown; depth: number; last: boolean }): ReactNode {
  const key = name === undefined ? null : <><span className="drover-json-key">{JSON.stringify(name)}</span>: </>;
  const comma = last ? '' : ',';
  if (!isBranch(value)) return <div>{key}{JSON.stringify(value) ?? 'null'}{comma}</div>;
  const entries: [string | undefined, unknown][] = Array.isArray(value) ? value.map((v) => [undefined, v]) : Object.entries(value);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (!entries.length) return <div>{key}{open}{close}{comma}</div>;
  const size = Array.isArray(value) ? `${entries.length} item${entries.length === 1 ? '' : 's'}` : `${entries.length} key${entries.length === 1 ? '' : 's'}`;
  return (
    <details open={depth < OPEN_DEPTH}>
      <summary>
        {key}{open}<span className="drover-json-folded drover-subtle"> … {close}{comma} ({size})</span>
      </summary>
      <div className="drover-json-children">
        {entries.map(([childName, child], i) => <Node key={childName ?? i} name={childName} value={child} depth={depth + 1} last={i === entries.length - 1} />)}
      </div>
      <div>{close}{comma}</div>
    </details>
  );
}

/**
 * A JSON value pretty-printed, each object and array folding at its opening line. Everything is text:
 * whatever the value holds (markup, scripts) is shown, never interpreted.
 */
export function JsonTree({ value, label }: { value: unknown; label: string }) {
  const text = JSON.stringify(value, null, 2) ?? 'null';
  return (
    <div className="drover-json-frame" role="region" aria-label={label} data-json-viewer>
      {text.length > TREE_LIMIT ? <pre className="drover-json">{text}</pre> : <div className="drover-json"><Node value={value} depth={0} last /></div>}
    </div>
  );
}
