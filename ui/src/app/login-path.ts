/** The login page, coming back to `where` after. */
export function loginPath(where: { pathname: string; search: string }): string {
  const next = `${where.pathname}${where.search}`;
  return next === '/' || next.startsWith('/login') ? '/login' : `/login?next=${encodeURIComponent(next)}`;
}

/** The second factor step of a signed-in session (docs/webauthn.md), going on to `next` once passed. */
export const SECOND_FACTOR_PATH = '/login/second-factor';

export function secondFactorPath(next: string): string {
  return next === '/' || next.startsWith('/login') ? SECOND_FACTOR_PATH : `${SECOND_FACTOR_PATH}?next=${encodeURIComponent(next)}`;
}

/** Only a path of this console (never another site) is followed after login. */
export function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
}
