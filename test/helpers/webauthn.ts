/**
 * Browsers and passkey ceremonies for tests of WebAuthn (docs/webauthn.md): a browser that keeps
 * its cookies without signing in first, and the steps a page takes with @simplewebauthn/browser
 * (begin, the authenticator, complete), with a SoftAuthenticator standing for the authenticator.
 */
import { cookieSession, type Response, type SessionClient, type TestApp } from './app.ts';
import { SoftAuthenticator, type CeremonyOverrides } from './soft-authenticator.ts';

/** A browser that has signed in to nothing yet: it keeps the cookies it is sent, and sends the CSRF header and Origin on writes. */
export function browser(t: TestApp): SessionClient {
  return { ...cookieSession(t.request, t.env.csrfTrustedOrigins[0]), loginResponse: { status: 0, body: undefined, headers: {}, text: '' } };
}

/** An authenticator for the origin the test app trusts first (the one its browsers send). */
export const authenticatorFor = (t: TestApp, format: 'none' | 'packed' = 'none') => new SoftAuthenticator(t.env.csrfTrustedOrigins[0], { format });

function expect(res: Response, status: number, what: string): Response {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status}: ${res.text}`);
  return res;
}

/** Registers a passkey of the signed-in browser's user on the authenticator; answers the stored credential. */
export async function registerPasskey(client: SessionClient, authenticator: SoftAuthenticator, label?: string, overrides: CeremonyOverrides = {}): Promise<any> {
  const options = expect(await client.post('/api/v2/webauthn/register/begin/', {}), 200, 'register/begin').body;
  const credential = authenticator.register(options, overrides);
  return expect(await client.post('/api/v2/webauthn/register/complete/', { credential, ...(label && { label }) }), 201, 'register/complete').body;
}

/** Begins an authentication (a sign-in without a session, the second factor with one); answers the request options. */
export async function beginAuthentication(client: SessionClient, body: { username?: string } = {}): Promise<any> {
  return expect(await client.post('/api/v2/webauthn/authenticate/begin/', body), 200, 'authenticate/begin').body;
}

/** A whole authentication: begin, the authenticator's assertion, complete; answers complete's response. */
export async function authenticate(
  client: SessionClient, authenticator: SoftAuthenticator, body: { username?: string } = {}, overrides: CeremonyOverrides = {},
): Promise<Response> {
  const options = await beginAuthentication(client, body);
  return client.post('/api/v2/webauthn/authenticate/complete/', { credential: authenticator.authenticate(options, overrides) });
}
