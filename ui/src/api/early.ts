/**
 * GET requests started as the app boots, before the code of the page that needs them has loaded.
 * The first `http.get` of the same URL takes the response instead of asking again; one nobody
 * takes within a few seconds is dropped.
 */
const KEEP_MS = 10_000;
const pending = new Map<string, Promise<Response>>();

export function startEarly(url: string) {
  if (pending.has(url)) return;
  pending.set(url, fetch(url, { headers: { Accept: 'application/json' }, credentials: 'same-origin' }));
  setTimeout(() => pending.delete(url), KEEP_MS);
}

export function takeEarly(url: string): Promise<Response> | undefined {
  const response = pending.get(url);
  pending.delete(url);
  return response;
}
