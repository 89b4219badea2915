/**
 * A real OpenID Provider (the oidc-provider package) on 127.0.0.1, with its development login and
 * consent pages driven by plain HTTP requests, and a hook that rewrites the ID token of the token
 * endpoint's answer (signed again with the provider's own key) to test what the client refuses.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface OidcAccount {
  email?: string;
  preferred_username?: string;
  given_name?: string;
  family_name?: string;
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Changes the claims of the next ID tokens (null: none); they are signed again with the provider's key. */
  tamper: ((claims: Record<string, unknown>) => Record<string, unknown>) | null;
  /** Signs the next ID tokens with a key the provider does not publish (with tamper). */
  forgeSignature: boolean;
  /** Follows the provider's pages from `authorizeUrl` as `account` until it redirects to `until`; answers that URL. */
  signIn(authorizeUrl: string, account: string, until: string): Promise<URL>;
  close(): Promise<void>;
}

function signJwt(header: Record<string, unknown>, claims: Record<string, unknown>, key: KeyObject): string {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const data = `${part(header)}.${part(claims)}`;
  return `${data}.${sign('sha256', Buffer.from(data), key).toString('base64url')}`;
}

export async function startOidcProvider(redirectUri: string, accounts: Record<string, OidcAccount>): Promise<TestOidcProvider> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const forgerKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'test-key', use: 'sig', alg: 'RS256' };
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
  const server: Server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'drover-test';
  const clientSecret = 'oidc-client-secret-value';
  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], token_endpoint_auth_method: 'client_secret_post' }],
    jwks: { keys: [jwk as never] },
    cookies: { keys: ['test-cookie-key'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['preferred_username', 'given_name', 'family_name'] },
    findAccount: (_ctx, id) => (accounts[id] ? { accountId: id, claims: () => ({ sub: id, ...accounts[id] }) } : undefined) as never,
  });
  const callback = provider.callback();

  const test: TestOidcProvider = {
    issuer,
    clientId,
    clientSecret,
    tamper: null,
    forgeSignature: false,
    async signIn(authorizeUrl, account, until) {
      const cookies = new Map<string, string>();
      let url = authorizeUrl;
      let method = 'GET';
      let body: string | undefined;
      for (let step = 0; step < 20; step++) {
        const res = await fetch(url, {
          method,
          redirect: 'manual',
          headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '), ...(body && { 'content-type': 'application/x-www-form-urlencoded' }) },
          body,
        });
        for (const line of res.headers.getSetCookie()) {
          const [pair] = line.split(';');
          const eq = pair.indexOf('=');
          cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
        }
        const location = res.headers.get('location');
        if (location) {
          const next = new URL(location, url);
          if (next.toString().startsWith(until)) return next;
          [url, method, body] = [next.toString(), 'GET', undefined];
          continue;
        }
        const page = await res.text();
        const action = /<form[^>]*action="([^"]+)"/.exec(page);
        if (res.status !== 200 || !action) throw new Error(`provider answered ${res.status}: ${page.slice(0, 300)}`);
        const fields = new URLSearchParams();
        for (const m of page.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) fields.set(m[1], m[2]);
        fields.set('login', account);
        fields.set('password', 'any');
        [url, method, body] = [new URL(action[1], url).toString(), 'POST', fields.toString()];
      }
      throw new Error('too many steps at the provider');
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  handler = (req, res) => {
    if (test.tamper && req.method === 'POST' && req.url?.startsWith('/token')) {
      const tamper = test.tamper;
      const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
      const chunks: Buffer[] = [];
      res.write = ((chunk: unknown) => (chunks.push(Buffer.from(chunk as string)), true)) as typeof res.write;
      res.end = ((chunk?: unknown) => {
        if (chunk && typeof chunk !== 'function') chunks.push(Buffer.from(chunk as string));
        let text = Buffer.concat(chunks).toString('utf8');
        try {
          const answer = JSON.parse(text);
          if (answer.id_token) {
            const [header, payload] = answer.id_token.split('.').slice(0, 2).map((p: string) => JSON.parse(Buffer.from(p, 'base64url').toString('utf8')));
            answer.id_token = signJwt(header, tamper(payload), test.forgeSignature ? forgerKey : privateKey);
            text = JSON.stringify(answer);
            res.setHeader('content-length', Buffer.byteLength(text));
          }
        } catch {
          // not JSON: leave as it is
        }
        return end(text);
      }) as typeof res.end;
    }
    callback(req, res);
  };
  return test;
}

/** A TCP server that accepts connections and never answers. */
export async function startSilentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer(() => undefined);
  server.on('connection', (s) => sockets.add(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}
