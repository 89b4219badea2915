/**
 * The assistant in the console's frame: its toggle for the masthead and its panel for the page's
 * drawer. The conversation is kept here, above the panel, which PatternFly unmounts while closed.
 */
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { Button } from '@patternfly/react-core';
import { OutlinedCommentAltIcon } from '@patternfly/react-icons';
import { Loading } from '../components/Loading';
import { Conversation } from './conversation';

// Loaded when first opened: the Markdown renderer stays out of every page's first load.
const AssistantPanel = lazy(() => import('./AssistantPanel'));

export function useAssistantDrawer() {
  const [open, setOpen] = useState(false);
  const [conversation] = useState(() => new Conversation());
  // Leaving the console's frame (logging out) ends an answer still streaming.
  useEffect(() => () => conversation.stop(), [conversation]);
  const toggleRef = useRef<HTMLButtonElement>(null);

  const close = () => {
    setOpen(false);
    toggleRef.current?.focus();
  };

  const toggle = (
    <Button
      ref={toggleRef}
      variant="plain"
      icon={<OutlinedCommentAltIcon />}
      aria-expanded={open}
      aria-controls={open ? 'assistant-panel' : undefined}
      onClick={() => setOpen(!open)}
    >
      Assistant
    </Button>
  );

  const panel = (
    <section id="assistant-panel" className="drover-assistant" aria-labelledby="assistant-title">
      <Suspense fallback={<Loading />}>
        <AssistantPanel conversation={conversation} onClose={close} />
      </Suspense>
    </section>
  );

  return { open, toggle, panel };
}
