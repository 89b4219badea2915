/** Lets the HTTP layer tell the app that the session ended (a 401), without importing the router. */
type Listener = () => void;
const listeners = new Set<Listener>();

export function onSessionExpired(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function sessionExpired(): void {
  for (const listener of listeners) listener();
}
