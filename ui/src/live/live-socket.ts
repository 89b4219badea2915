import { useEffect, useRef } from 'react';
import { csrfToken } from '../api/csrf';

/** A message of the service's live output websocket (AWX's protocol). */
export type LiveMessage = Record<string, unknown> & { group_name?: string };

/** Groups to join, as AWX names them: {jobs: ['status_changed'], job_events: [42]}. */
export type LiveGroups = Record<string, (string | number)[]>;

const RETRY_MS = [1_000, 2_000, 5_000, 10_000];

const socketUrl = () => `${window.location.protocol === 'https:' ? 'wss' : 'ws'}://${window.location.host}/websocket/`;

/**
 * Keeps a websocket joined to `groups` while they are given (null: no socket), reconnecting after
 * a drop. `onJoined` runs each time the service confirms the groups: from then on nothing is
 * missed, so it is the moment to read through the API what happened before.
 */
export function useLiveSocket(groups: LiveGroups | null, onMessage: (message: LiveMessage) => void, onJoined?: () => void) {
  const handlers = useRef({ onMessage, onJoined });
  handlers.current = { onMessage, onJoined };
  const key = groups ? JSON.stringify(groups) : '';

  useEffect(() => {
    if (!key) return;
    let socket: WebSocket | undefined;
    let attempt = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let disposed = false;

    const connect = () => {
      socket = new WebSocket(socketUrl());
      socket.onopen = () => socket?.send(JSON.stringify({ groups: JSON.parse(key), xrftoken: csrfToken() }));
      socket.onmessage = (event) => {
        let message: LiveMessage;
        try {
          message = JSON.parse(String(event.data));
        } catch {
          return;
        }
        if ('groups_current' in message) {
          attempt = 0;
          handlers.current.onJoined?.();
        } else if (!('accept' in message)) handlers.current.onMessage(message);
      };
      socket.onclose = () => {
        if (disposed) return;
        timer = setTimeout(connect, RETRY_MS[Math.min(attempt++, RETRY_MS.length - 1)]);
      };
    };
    connect();
    return () => {
      disposed = true;
      clearTimeout(timer);
      socket?.close();
    };
  }, [key]);
}
