import { useEffect, useMemo, useSyncExternalStore } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { http } from '../../api/client';
import type { Run } from './run-kinds';
import { useLiveSocket, type LiveMessage } from '../../live/live-socket';
import { OutputStore, type ChildrenSummary, type OutputEvent } from './output-store';
import { EVENT_GROUPS, eventsUrlOf, hasEventTree, isActive } from './run-kinds';

/** A run whose events may still arrive: active, or over with its events not all stored yet. */
const isLive = (run: Run) => isActive(run) || run.event_processing_finished === false;

/**
 * The output of a run: while it is live, its events over the websocket (and what came before
 * through the API once joined); once over, from the API alone. Changes of its status re-read the run.
 */
export function useRunOutput(run: Run): OutputStore {
  const queryClient = useQueryClient();
  const store = useMemo(() => new OutputStore(eventsUrlOf(run)), [run.id, run.type]);
  useSyncExternalStore(store.subscribe, store.getVersion);
  const live = isLive(run);
  const group = EVENT_GROUPS[run.type];
  const refreshRun = () => void queryClient.invalidateQueries({ queryKey: [run.url] });

  const onMessage = (message: LiveMessage) => {
    const ours = message.unified_job_id === run.id || message[run.type] === run.id;
    if (message.group_name === group && ours) {
      if (message.event === 'EOF') {
        refreshRun();
        void store.loadEnd();
      } else if (typeof message.counter === 'number') store.add([message as unknown as OutputEvent]);
      // events_skipped: the lines they hold are read from the API when they come into view.
    } else if (message.group_name === 'jobs' && message.unified_job_id === run.id) refreshRun();
  };
  useLiveSocket(live && group ? { jobs: ['status_changed', 'summary'], [group]: [run.id] } : null, onMessage, () => void store.loadEnd());

  useEffect(() => {
    if (live) return;
    store.finished = true;
    // The first lines are read beside the last event, not after it: the first screen waits for one round trip.
    store.loadStart();
    void store.loadEnd();
  }, [live, store]);

  // The tree of a big job takes the service a while the first time: asked for once the first lines are in.
  const wantTree = !live && hasEventTree(run) && store.lines.has(0);
  useEffect(() => {
    if (!wantTree) return;
    http
      .get<ChildrenSummary>(`${store.eventsUrl}children_summary/`)
      .then((tree) => {
        store.tree = tree;
        store.changed();
      })
      .catch(() => undefined);
  }, [wantTree, store]);

  return store;
}
