/**
 * The conversation with the assistant: each question with its answer as it streams in, one answer
 * at a time, and the question being typed. It lives as long as the console's frame: across pages,
 * and while the panel is closed (an answer goes on streaming). Kept outside React's state so that
 * each token redraws the panel only, not the frame around every page.
 */
import { useSyncExternalStore } from 'react';
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

export interface ConversationState {
  exchanges: readonly Exchange[];
  draft: string;
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

export class Conversation {
  private state: ConversationState = { exchanges: [], draft: '' };
  private readonly listeners = new Set<() => void>();
  private running: AbortController | null = null;
  private nextId = 1;

  readonly subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };

  readonly snapshot = () => this.state;

  setDraft(draft: string): void {
    this.set({ draft });
  }

  /** Sends a question with the page it is asked from; does nothing while an answer streams. */
  ask(question: string, page: string): void {
    if (this.running) return;
    const controller = new AbortController();
    this.running = controller;
    const id = this.nextId++;
    const history = historyOf(this.state.exchanges);
    this.set({ exchanges: [...this.state.exchanges, { id, question, page, answer: '', state: 'streaming', sources: [] }] });
    askAssistant({ message: question, page, history }, (token) => this.update(id, (e) => ({ answer: e.answer + token })), controller.signal)
      .then(
        (sources) => ({ state: 'done' as const, sources }),
        (err) => (controller.signal.aborted ? { state: 'stopped' as const } : { state: 'failed' as const, error: problemOf(err) }),
      )
      .then((end) => {
        if (this.running === controller) this.running = null;
        this.update(id, () => end);
      });
  }

  /** Stops the answer that is streaming: the request ends, and the service cancels the model's. */
  stop(): void {
    this.running?.abort();
  }

  /** Starts over (stopping an answer that is streaming). */
  clear(): void {
    this.stop();
    this.running = null;
    this.set({ exchanges: [] });
  }

  private update(id: number, change: (e: Exchange) => Partial<Exchange>): void {
    this.set({ exchanges: this.state.exchanges.map((e) => (e.id === id ? { ...e, ...change(e) } : e)) });
  }

  private set(change: Partial<ConversationState>): void {
    this.state = { ...this.state, ...change };
    for (const listener of this.listeners) listener();
  }
}

/** The conversation's state, redrawing the component as it changes. */
export function useConversationState(conversation: Conversation): ConversationState {
  return useSyncExternalStore(conversation.subscribe, conversation.snapshot);
}
