import { memo, type ReactNode } from 'react';
import Anser from 'anser';

const ESCAPES = /\u001b\[[0-9;?]*[A-Za-z]/g;
export const stripAnsi = (text: string) => text.replace(ESCAPES, '');

/** Occurrences of `term` (any case) in `text` wrapped in <mark>. */
function highlight(text: string, term: string, keyPrefix: string): ReactNode {
  if (!term) return text;
  const lower = text.toLowerCase();
  const needle = term.toLowerCase();
  const parts: ReactNode[] = [];
  let from = 0;
  for (let at = lower.indexOf(needle); at !== -1; at = lower.indexOf(needle, from)) {
    if (at > from) parts.push(text.slice(from, at));
    parts.push(<mark key={`${keyPrefix}-${at}`}>{text.slice(at, at + needle.length)}</mark>);
    from = at + needle.length;
  }
  if (!parts.length) return text;
  if (from < text.length) parts.push(text.slice(from));
  return parts;
}

/** One line of terminal output: its ANSI colours as classed spans (never as HTML), `term` marked. */
export const AnsiText = memo(function AnsiText({ text, term }: { text: string; term: string }) {
  if (!text.includes('\u001b')) return <>{highlight(text, term, 'p')}</>;
  const segments = Anser.ansiToJson(text, { use_classes: true, remove_empty: true });
  return (
    <>
      {segments.map((segment, i) => {
        const classes = [segment.fg && `${segment.fg}-fg`, segment.bg && `${segment.bg}-bg`, ...segment.decorations.map((d) => `ansi-${d}`)].filter(Boolean).join(' ');
        const content = highlight(segment.content, term, String(i));
        return classes ? (
          <span key={i} className={classes}>
            {content}
          </span>
        ) : (
          <span key={i}>{content}</span>
        );
      })}
    </>
  );
});
