/**
 * The assistant panel, beside every page of the console: questions about Drover answered by the
 * assistant service, streamed in as Markdown. Each question carries the route of the page it is
 * asked from; the conversation stays while the user moves between pages.
 */
import { useEffect, useLayoutEffect, useRef, type FormEvent, type KeyboardEvent } from 'react';
import { useLocation } from 'react-router';
import { Alert, Button, DrawerActions, DrawerCloseButton, DrawerHead, DrawerPanelBody, TextArea, Title } from '@patternfly/react-core';
import { useQuery } from '@tanstack/react-query';
import { assistantHealth, problemOf, type Health } from './assistant-api';
import { ExchangeView } from './ExchangeView';
import { useConversationState, type Conversation } from './conversation';
import './assistant.css';

/** Asked each time the panel opens (it is mounted only while open), at most every 30 seconds. */
function HealthNotice() {
  const health = useQuery({ queryKey: ['assistant-health'], queryFn: assistantHealth, staleTime: 30_000, retry: false });
  if (health.error) {
    return <Alert variant="warning" isInline isPlain title="The assistant service is not reachable">{problemOf(health.error)}</Alert>;
  }
  const h: Health | undefined = health.data;
  if (!h || h.status === 'ok') return null;
  const problems = [
    !h.llm_backend && `the language model server does not answer or does not offer the model ${h.model}`,
    !h.vector_store && 'the documentation index does not answer',
  ].filter(Boolean);
  return (
    <Alert variant="warning" isInline isPlain title="The assistant is degraded">
      {problems.length ? `Answers may fail: ${problems.join('; ')}.` : 'Answers may fail.'}
    </Alert>
  );
}

export default function AssistantPanel({ conversation, onClose }: { conversation: Conversation; onClose(): void }) {
  const { pathname } = useLocation();
  const { exchanges, draft: question } = useConversationState(conversation);
  const streaming = exchanges.some((e) => e.state === 'streaming');
  const input = useRef<HTMLTextAreaElement>(null);
  const log = useRef<HTMLDivElement>(null);
  const following = useRef(true);

  // Opening the panel (which mounts it) puts the cursor in the question box.
  useEffect(() => input.current?.focus(), []);

  // The conversation follows the answer as it grows, unless the user has scrolled up to read.
  useLayoutEffect(() => {
    if (following.current && log.current) log.current.scrollTop = log.current.scrollHeight;
  }, [exchanges]);
  const onScroll = () => {
    const el = log.current;
    if (el) following.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
  };

  const send = (e?: FormEvent) => {
    e?.preventDefault();
    const text = question.trim();
    if (!text || streaming) return;
    following.current = true;
    conversation.ask(text, pathname);
    conversation.setDraft('');
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    // Enter sends; Shift+Enter is a new line; Enter that ends an input method's composition is not a send.
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) send(e);
  };

  return (
    <>
      <DrawerHead>
        <Title headingLevel="h2" size="xl" id="assistant-title">Assistant</Title>
        <DrawerActions>
          <Button variant="link" isInline onClick={() => conversation.clear()} isDisabled={!exchanges.length}>New conversation</Button>
          <DrawerCloseButton onClick={onClose} aria-label="Close the assistant" />
        </DrawerActions>
      </DrawerHead>
      <DrawerPanelBody className="drover-assistant-body">
        <HealthNotice />
        <div className="drover-assistant-log" role="log" aria-live="polite" aria-label="Conversation" ref={log} onScroll={onScroll} tabIndex={0}>
          {exchanges.length === 0 && (
            <p className="drover-subtle">
              Ask about Drover: how to do something, what a field or setting means, why a run failed. Answers come from Drover's
              documentation and name their sources; the page you are on is sent with your question.
            </p>
          )}
          {exchanges.map((exchange) => (
            <ExchangeView key={exchange.id} exchange={exchange} />
          ))}
        </div>
        <form className="drover-assistant-form" onSubmit={send} aria-label="Ask the assistant">
          <label htmlFor="assistant-question" className="drover-assistant-label">
            Your question
          </label>
          <TextArea
            id="assistant-question"
            ref={input}
            value={question}
            onChange={(_e, value) => conversation.setDraft(value)}
            onKeyDown={onKeyDown}
            rows={3}
            resizeOrientation="vertical"
            aria-describedby="assistant-question-help"
          />
          <div className="drover-assistant-actions">
            <span id="assistant-question-help" className="drover-subtle">
              Enter sends, Shift+Enter starts a new line. Asked from {pathname}.
            </span>
            {streaming && <Button variant="secondary" isDanger onClick={() => conversation.stop()}>Stop</Button>}
            <Button type="submit" variant="primary" isDisabled={streaming || !question.trim()}>Send</Button>
          </div>
        </form>
      </DrawerPanelBody>
    </>
  );
}
