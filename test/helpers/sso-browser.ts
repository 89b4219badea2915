/** A browser's side of an SSO sign-in, driven by hand: the state cookie carried back, failures read off the redirect. */
import assert from 'node:assert/strict';
import { setCookies, type Response, type TestApp } from './app.ts';

/** Starts a sign-in at /sso/login/<backend>/: the provider's URL and the state cookie. */
export async function startSso(t: TestApp, backend: string, query = ''): Promise<{ location: URL; cookie: string | null | undefined }> {
  const res = await t.get(`/sso/login/${backend}/${query}`, { as: null });
  assert.equal(res.status, 302, res.text);
  return { location: new URL(String(res.headers.location)), cookie: setCookies(res).get('svc_sso_state')?.value };
}

/** The provider's redirect back to the service, with the browser's state cookie. */
export const returnFromProvider = (t: TestApp, url: URL, cookie: string | null | undefined): Promise<Response> =>
  t.get(url.pathname + url.search, { as: null, headers: cookie ? { cookie: `svc_sso_state=${cookie}` } : {} });

/** Asserts the sign-in failed (back to the login page, no session) and answers the message shown. */
export function ssoFailure(res: Response): string {
  assert.equal(res.status, 302);
  const location = new URL(String(res.headers.location), 'http://drover.invalid');
  assert.equal(location.pathname, '/login');
  assert.ok(!setCookies(res).get('svc_sessionid')?.value, 'no session');
  return location.searchParams.get('sso_error') ?? '';
}

/** The detail of the last refused sign-in's audit event. */
export const lastLoginFailure = async (t: TestApp) =>
  (await t.db.query<{ detail: { reason: string } }>(`SELECT detail FROM audit_events WHERE event_type = 'auth.login' AND outcome = 'failure' ORDER BY id DESC LIMIT 1`))[0]?.detail;
