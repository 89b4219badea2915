import type { ReactNode } from 'react';
import { tokenize } from './rego-tokens';
import './policies.css';

/** Rego source as highlighted spans. */
export function RegoCode({ source }: { source: string }): ReactNode {
  return tokenize(source).map((token, i) => (token.kind === 'text' ? token.text : <span key={i} className={`drover-rego-${token.kind}`}>{token.text}</span>));
}

/**
 * A text area for Rego over a highlighted copy of its text: the area's own text is transparent, so
 * the caret and selection are the browser's and the colours come from the copy underneath.
 */
export function RegoEditor({ id, value, onChange, invalid }: { id: string; value: string; onChange: (value: string) => void; invalid?: boolean }) {
  return (
    <div className={`drover-rego-editor${invalid ? ' drover-rego-invalid' : ''}`}>
      <pre className="drover-rego-layer" aria-hidden="true"><RegoCode source={value} />{'\n'}</pre>
      <textarea
        id={id}
        className="drover-rego-input"
        value={value}
        spellCheck={false}
        aria-invalid={invalid}
        onChange={(e) => onChange(e.target.value)}
        onScroll={(e) => {
          const layer = e.currentTarget.previousElementSibling as HTMLElement | null;
          if (layer) [layer.scrollTop, layer.scrollLeft] = [e.currentTarget.scrollTop, e.currentTarget.scrollLeft];
        }}
      />
    </div>
  );
}

/** Read-only Rego, highlighted. */
export function RegoView({ source }: { source: string }) {
  return <pre className="drover-rego-view" aria-label="Rego module"><RegoCode source={source} /></pre>;
}
