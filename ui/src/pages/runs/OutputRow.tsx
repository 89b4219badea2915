import { memo } from 'react';
import { AngleDownIcon, AngleRightIcon } from '@patternfly/react-icons';
import { AnsiText, stripAnsi } from './ansi';
import type { OutputLine } from './output-store';
import { IGNORED_FAILURE } from './event-outcome';

interface Props {
  number: number;
  line: OutputLine | undefined;
  top: number;
  term: string;
  current: boolean;
  fold: 'open' | 'folded' | null;
  onToggle: (counter: number) => void;
  onOpen: (counter: number) => void;
}

/** One line of output: its fold toggle (play and task headers), its number (opens its event) and text. */
export const OutputRow = memo(function OutputRow({ number, line, top, term, current, fold, onToggle, onOpen }: Props) {
  const open = () => {
    // Selecting text to copy it is not a click on the line.
    if (line && (window.getSelection()?.isCollapsed ?? true)) onOpen(line.counter);
  };
  const header = fold && line ? stripAnsi(line.text).replace(/[\s*]+$/, '') : '';
  return (
    <div className={`drover-output-line${current ? ' is-current-match' : ''}`} data-line={number} style={{ transform: `translateY(${top}px)` }} onClick={open}>
      <span className="drover-output-gutter">
        {fold && line && (
          <button
            type="button"
            className="drover-output-toggle"
            aria-expanded={fold === 'open'}
            aria-label={`${fold === 'open' ? 'Collapse' : 'Expand'} ${header}`}
            onClick={(e) => {
              e.stopPropagation();
              onToggle(line.counter);
            }}
          >
            {fold === 'open' ? <AngleDownIcon /> : <AngleRightIcon />}
          </button>
        )}
        <button type="button" className="drover-output-number" aria-label={`Line ${number + 1}: event details`} disabled={!line} onClick={(e) => { e.stopPropagation(); if (line) onOpen(line.counter); }}>
          {number + 1}
        </button>
      </span>
      <span className="drover-output-text">
        {line ? <AnsiText text={line.text} term={term} /> : <span className="drover-output-missing">…</span>}
        {line?.ignored && line.last && <span className="drover-output-ignored" data-status="failed_ignored">{IGNORED_FAILURE}</span>}
      </span>
    </div>
  );
});
