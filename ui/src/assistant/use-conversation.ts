/**
 * The conversation with the assistant: each question with its answer as it streams in, one answer
 * at a time, and the question being typed. It lives as long as the console's frame: across pages,
 * and while the panel is closed (an answer goes on streaming).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { askAssistant, problemOf, type Source, type Turn } from './assistant-api';

export interface Exchange {
  id: number;
  question: string;
  /** The console route it was asked from. */
  page: string;
  /** The answer so far: Markdown. */
  answer: string;
  state: 'streaming' | 'done' | 'stopped' | 'failed';
  error?: string;
  sources: Source[];
}

/** The service uses the last 3 exchanges of the history: more would only be sent to be dropped. */
const EXCHANGES_SENT = 3;

/** The earlier exchanges as history: only answers that completed, so a broken one does not mislead the next. */
function historyOf(exchanges: readonly Exchange[]): Turn[] {
  return exchanges
    .filter((e) => e.state === 'done')
    .slice(-EXCHANGES_SENT)
    .flatMap((e): Turn[] => [
      { role: 'user', content: e.question },
      { role: 'assistant', content: e.answer },
    ]);
}

export function useConversation() {
  const [exchanges, setExchanges] = useState<Exchange[]>([]);
  const [draft, setDraft] = useState('');
  const running = useRef<AbortController | null>(null);
  const nextId = useRef(1);

  const update = useCallback((id: number, change: (e: Exchange) => Partial<Exchange>) => {
    setExchanges((list) => list.map((e) => (e.id === id ? { ...e, ...change(e) } : e)));
  }, []);

  const ask = useCallback(
    (question: string, page: string) => {
      if (running.current) return;
      const controller = new AbortController();
      running.current = controller;
      const id = nextId.current++;
      const history = historyOf(exchanges);
      setExchanges((list) => [...list, { id, question, page, answer: '', state: 'streaming', sources: [] }]);
      askAssistant({ message: question, page, history }, (token) => update(id, (e) => ({ answer: e.answer + token })), controller.signal)
        .then(
          (sources) => update(id, () => ({ state: 'done', sources })),
          (err) => update(id, () => (controller.signal.aborted ? { state: 'stopped' } : { state: 'failed', error: problemOf(err) })),
        )
        .finally(() => {
          if (running.current === controller) running.current = null;
        });
    },
    [exchanges, update],
  );

  /** Stops the answer that is streaming: the request ends, and the service cancels the model's. */
  const stop = useCallback(() => running.current?.abort(), []);

  const clear = useCallback(() => {
    running.current?.abort();
    running.current = null;
    setExchanges([]);
  }, []);

  // Leaving the console (logging out) ends an answer still streaming.
  useEffect(() => () => running.current?.abort(), []);

  return { exchanges, streaming: exchanges.some((e) => e.state === 'streaming'), draft, setDraft, ask, stop, clear };
}

export type Conversation = ReturnType<typeof useConversation>;
