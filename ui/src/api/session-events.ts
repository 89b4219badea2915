/**
 * Lets the HTTP layer tell the app that the session can no longer be used (a 401), without
 * importing the router: it ended (`expired`), or it must pass its second factor first
 * (`second_factor`: the API's wall, docs/webauthn.md#the-wall).
 */
export type SessionStop = 'expired' | 'second_factor';
type Listener = (why: SessionStop) => void;
const listeners = new Set<Listener>();

/** The API's answer to a session that has not passed the second factor it must pass. */
const SECOND_FACTOR_REQUIRED = 'Second factor required.';

export function onSessionExpired(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Tells the listeners about a 401 answered with `body`. */
export function sessionExpired(body: unknown): void {
  const why: SessionStop = body && typeof body === 'object' && (body as { detail?: unknown }).detail === SECOND_FACTOR_REQUIRED ? 'second_factor' : 'expired';
  for (const listener of listeners) listener(why);
}
