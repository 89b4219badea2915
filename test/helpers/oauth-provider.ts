/**
 * A stand-in for GitHub, Google and Azure AD on 127.0.0.1, speaking their OAuth2 wire protocol
 * (authorize redirect, token endpoint, user APIs) at their real paths: the service reaches it
 * through SVC_SOCIAL_AUTH_PROVIDER_URL. Codes and tokens are random and used once.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export interface StandInUser {
  id: string;
  login: string;
  email: string;
  name?: string;
  emailVerified?: boolean;
  /** GitHub: the email only in /user/emails. */
  privateEmail?: boolean;
}

export interface OAuthStandIn {
  url: string;
  clients: Record<string, string>;
  /** Who the next authorization signs in. */
  user: StandInUser;
  /** The token endpoint never answers. */
  silent: boolean;
  /** Changes the Azure AD ID token's claims. */
  azureClaims: ((claims: Record<string, unknown>) => Record<string, unknown>) | null;
  /** Requests to the token endpoint, with the client secret they carried. */
  tokenRequests: Array<{ path: string; clientSecret: string | null }>;
  close(): Promise<void>;
}

const AUTHORIZE = new Set(['/login/oauth/authorize', '/o/oauth2/auth', '/common/oauth2/authorize']);
const TOKEN = new Set(['/login/oauth/access_token', '/token', '/common/oauth2/token']);

const read = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => resolve(body));
  });

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

export async function startOAuthStandIn(clients: Record<string, string>): Promise<OAuthStandIn> {
  const codes = new Map<string, { user: StandInUser; clientId: string; redirectUri: string; path: string }>();
  const tokens = new Map<string, StandInUser>();
  const sockets = new Set<import('node:net').Socket>();
  const standIn: OAuthStandIn = {
    url: '',
    clients,
    user: { id: '1', login: 'someone', email: 'someone@example.com' },
    silent: false,
    azureClaims: null,
    tokenRequests: [],
    close: () => new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', standIn.url);
    if (req.method === 'GET' && AUTHORIZE.has(url.pathname)) {
      const clientId = url.searchParams.get('client_id') ?? '';
      const redirectUri = url.searchParams.get('redirect_uri') ?? '';
      if (!(clientId in clients) || url.searchParams.get('response_type') !== 'code') return json(res, 400, { error: 'invalid_request' });
      const code = randomBytes(12).toString('hex');
      codes.set(code, { user: standIn.user, clientId, redirectUri, path: url.pathname });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }
    if (req.method === 'POST' && TOKEN.has(url.pathname)) {
      const form = new URLSearchParams(await read(req));
      standIn.tokenRequests.push({ path: url.pathname, clientSecret: form.get('client_secret') });
      if (standIn.silent) return;
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const clientId = form.get('client_id') ?? '';
      const valid = grant && grant.clientId === clientId && clients[clientId] === form.get('client_secret') && grant.redirectUri === form.get('redirect_uri');
      // GitHub answers errors with 200 and an `error` member; the others with 400.
      if (!valid) return json(res, url.pathname.startsWith('/login/') ? 200 : 400, { error: url.pathname.startsWith('/login/') ? 'bad_verification_code' : 'invalid_grant' });
      const accessToken = randomBytes(16).toString('hex');
      tokens.set(accessToken, grant.user);
      const answer: Record<string, unknown> = { access_token: accessToken, token_type: 'bearer' };
      if (url.pathname === '/common/oauth2/token') {
        const now = Math.floor(Date.now() / 1000);
        let claims: Record<string, unknown> = {
          aud: clientId, iss: 'https://sts.windows.net/tenant/', iat: now, exp: now + 3600, oid: grant.user.id,
          upn: grant.user.email, email: grant.user.email, given_name: grant.user.name?.split(' ')[0], family_name: grant.user.name?.split(' ')[1],
        };
        if (standIn.azureClaims) claims = standIn.azureClaims(claims);
        const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
        answer.id_token = `${part({ alg: 'RS256', typ: 'JWT' })}.${part(claims)}.c2lnbmF0dXJl`;
      }
      return json(res, 200, answer);
    }
    const user = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /i, ''));
    if (req.method === 'GET' && url.pathname === '/user') {
      if (!user) return json(res, 401, { message: 'Bad credentials' });
      return json(res, 200, { id: Number(user.id), login: user.login, name: user.name ?? null, email: user.privateEmail ? null : user.email });
    }
    if (req.method === 'GET' && url.pathname === '/user/emails') {
      if (!user) return json(res, 401, { message: 'Bad credentials' });
      return json(res, 200, [{ email: 'old@example.org', primary: false, verified: true }, { email: user.email, primary: true, verified: true }]);
    }
    if (req.method === 'GET' && url.pathname === '/oauth2/v3/userinfo') {
      if (!user) return json(res, 401, { error: 'invalid_token' });
      const [given, family] = (user.name ?? '').split(' ');
      return json(res, 200, { sub: user.id, email: user.email, email_verified: user.emailVerified ?? true, given_name: given, family_name: family });
    }
    json(res, 404, { error: 'not_found' });
  });
  server.on('connection', (s) => sockets.add(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  standIn.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return standIn;
}
