import { Alert, Spinner } from '@patternfly/react-core';
import { AnswerMarkdown } from './AnswerMarkdown';
import type { Source } from './assistant-api';
import type { Exchange } from './conversation';

/** A source as the answer cites it ([1], [2]... in this order): its title and heading, then where it comes from (docs/jobs.md). */
function SourceList({ sources }: { sources: Source[] }) {
  if (!sources.length) return null;
  return (
    <div className="drover-assistant-sources">
      <h4 className="drover-assistant-sources-title">Sources</h4>
      <ol aria-label="Sources">
        {sources.map((s, i) => (
          <li key={i}>
            {[s.title, s.heading].filter((part, n, all) => part && all.indexOf(part) === n).join(' › ')} <code>{s.source}</code>
          </li>
        ))}
      </ol>
    </div>
  );
}

/** One question and its answer, as far as it has come. */
export function ExchangeView({ exchange }: { exchange: Exchange }) {
  const { question, page, answer, state, error, sources } = exchange;
  return (
    <article className="drover-assistant-exchange" aria-label={`Question: ${question.slice(0, 80)}`} data-state={state}>
      <div className="drover-assistant-question">
        <h3 className="pf-v6-screen-reader">You asked</h3>
        <p>{question}</p>
        <span className="drover-subtle drover-assistant-page">on {page}</span>
      </div>
      <div className="drover-assistant-answer" aria-busy={state === 'streaming'}>
        <h3 className="pf-v6-screen-reader">Answer</h3>
        {answer && <AnswerMarkdown text={answer} />}
        {state === 'streaming' && <Spinner size="md" aria-label="Answering" />}
        {state === 'stopped' && <p className="drover-subtle">Stopped.</p>}
        {state === 'failed' && (
          <Alert variant="danger" isInline isPlain title="The assistant could not answer">
            {error}
          </Alert>
        )}
        <SourceList sources={sources} />
      </div>
    </article>
  );
}
