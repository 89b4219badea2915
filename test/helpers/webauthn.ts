/**
 * Browsers and passkey ceremonies for tests of WebAuthn (docs/webauthn.md): a browser that keeps
 * its cookies without signing in first, and the steps a page takes with @simplewebauthn/browser
 * (begin, the authenticator, complete), with a SoftAuthenticator standing for the authenticator.
 */
import { setCookies, type Response, type SessionClient, type SessionRequestOptions, type TestApp } from './app.ts';
import { SoftAuthenticator, type CeremonyOverrides } from './soft-authenticator.ts';

/** A browser that has signed in to nothing yet: it keeps the cookies it is sent, and sends the CSRF header and Origin on writes. */
export function browser(t: TestApp): SessionClient {
  const cookies = new Map<string, string>();
  const keep = (res: Response) => {
    for (const [name, { value }] of setCookies(res)) {
      if (value === null) cookies.delete(name);
      else cookies.set(name, value);
    }
    return res;
  };
  const send = (method: string, url: string, o: SessionRequestOptions = {}) => {
    const headers: Record<string, string> = {};
    if (cookies.size) headers.cookie = [...cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ');
    if (!['GET', 'HEAD', 'OPTIONS'].includes(method)) {
      const token = o.csrf === undefined ? cookies.get('csrftoken') : o.csrf;
      if (token) headers['x-csrftoken'] = token;
      const origin = o.origin === undefined ? t.env.csrfTrustedOrigins[0] : o.origin;
      if (origin) headers.origin = origin;
    }
    return t.request(method, url, { as: null, body: o.body, payload: o.payload, headers: { ...headers, ...o.headers } }).then(keep);
  };
  return {
    cookies,
    loginResponse: { status: 0, body: undefined, headers: {}, text: '' },
    request: send,
    get: (url, o) => send('GET', url, o),
    post: (url, body, o) => send('POST', url, { ...o, body }),
    patch: (url, body, o) => send('PATCH', url, { ...o, body }),
    delete: (url, o) => send('DELETE', url, o),
  };
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
