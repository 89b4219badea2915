import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { callerIn, type Services } from '../api/context.ts';
import { createObject, removeObject } from '../api/crud.ts';
import { ApiError, methodNotAllowed } from '../api/errors.ts';
import { revealedSecrets } from '../api/fields.ts';
import { isVisible } from '../api/list.ts';
import { viewOptions } from '../api/options.ts';
import { clientOf, recordAudit } from '../audit/record.ts';
import type { ApplicationRow, TokenRow } from '../db/tables.ts';
import { parseScope } from '../resources/tokens/token.resource.ts';
import { PUBLIC } from '../api/permissions.ts';
import { parseBasicHeader, toCurrentUser } from './basic.ts';
import { hashSecret, refreshTokenLifetime, type TokenScope } from './oauth2.ts';
import { attemptPasswordLogin, TOO_MANY_ATTEMPTS } from './password-login.ts';
import { secondFactorRequired } from './second-factor.ts';
import { schemaOptions, type MethodSchemas } from '../api/route-schemas.ts';
import { oauthRootSchemas, revokeSchemas, tokenSchemas } from './auth-schemas.ts';

export const OAUTH2_ROOT = '/api/o/';
export const TOKEN_URL = '/api/o/token/';
export const REVOKE_URL = '/api/o/revoke_token/';
const FORM_BODY_LIMIT = 64 * 1024;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route authenticates its callers itself (OAuth2 clients); user credentials are not read. */
    ownAuthentication?: boolean;
  }
}

/** An error of the OAuth2 token and revocation endpoints, answered as RFC 6749 section 5.2 says. */
class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** One URL answering some methods, 405 with Allow for the others; OAuth2 errors in their own shape. */
function oauthRoute(
  app: FastifyInstance,
  url: string,
  ownAuthentication: boolean,
  handlers: Partial<Record<(typeof METHODS)[number], Handler>>,
  schemas: MethodSchemas = {},
) {
  const allowed = [...Object.keys(handlers), ...(handlers.GET ? ['HEAD'] : [])];
  const config = { permission: PUBLIC, ownAuthentication };
  for (const method of METHODS) {
    const handler = handlers[method];
    if (!handler) continue;
    const { checkedBody: _, ...options } = schemaOptions(schemas[method]);
    app.route({
      method,
      url,
      config,
      ...options,
      handler: async (request, reply) => {
        try {
          return await handler(request, reply);
        } catch (err) {
          const oauth = err instanceof OAuthError ? err : err instanceof ApiError && err.status === 403 ? new OAuthError(403, 'access_denied', err.message) : null;
          if (!oauth) throw err;
          return reply
            .code(oauth.status)
            .headers({ 'Cache-Control': 'no-store', Pragma: 'no-cache', ...oauth.headers })
            .send({ error: oauth.error, error_description: oauth.description });
        }
      },
    });
  }
  app.route({
    method: METHODS.filter((method) => !handlers[method]),
    url,
    config,
    schema: { hide: true },
    handler: async (request, reply) => {
      reply.header('Allow', allowed.join(', '));
      throw methodNotAllowed(request.method);
    },
  });
}

/** The request's parameters: a form or a JSON object of strings, each given once. */
function readParams(body: unknown): Record<string, string> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw new OAuthError(400, 'invalid_request', 'Send the parameters as a form or a JSON object.');
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (Array.isArray(value)) throw new OAuthError(400, 'invalid_request', `Duplicate ${name} parameter.`);
    if (value === null || value === undefined) continue;
    if (typeof value !== 'string') throw new OAuthError(400, 'invalid_request', `The ${name} parameter must be a string.`);
    params[name] = value;
  }
  return params;
}

function required(params: Record<string, string>, name: string): string {
  const value = params[name];
  if (!value) throw new OAuthError(400, 'invalid_request', `Request is missing ${name} parameter.`);
  return value;
}

/** Client credentials in HTTP Basic are form-encoded first (RFC 6749 section 2.3.1). */
function formDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
}

const sameHash = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * The application calling: HTTP Basic with client_id and client_secret, or client_id (and
 * client_secret) in the body. A confidential application must prove its secret; a public one
 * names itself only.
 */
async function authenticateClient(services: Services, request: FastifyRequest, params: Record<string, string>): Promise<ApplicationRow> {
  const basic = parseBasicHeader(request.headers.authorization);
  const clientId = basic ? formDecode(basic.username) : params.client_id;
  const secret = basic ? formDecode(basic.password) : params.client_secret;
  const failed = (description: string) =>
    new OAuthError(401, 'invalid_client', description, basic ? { 'WWW-Authenticate': 'Basic realm="oauth2"' } : {});
  if (!clientId) throw failed('Client authentication failed: send client_id, with client_secret for a confidential application.');
  const [app] = await services.db.query<ApplicationRow>('SELECT * FROM applications WHERE client_id = $1', [clientId]);
  if (!app) throw failed('Client authentication failed: unknown client_id.');
  if (app.client_type === 'confidential' && (!secret || !app.client_secret_hash || !sameHash(hashSecret(secret), app.client_secret_hash))) {
    throw failed('Client authentication failed: a confidential application must send its client_secret.');
  }
  return app;
}

interface OwnerRow {
  id: number;
  username: string;
  is_superuser: boolean;
  is_system_auditor: boolean;
  is_active: boolean;
}

function tokenResponse(row: TokenRow, reply: FastifyReply) {
  const shown = revealedSecrets(row) ?? {};
  reply.headers({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
  return {
    access_token: shown.token,
    token_type: 'Bearer',
    expires_in: Math.max(0, Math.floor((new Date(row.expires).getTime() - Date.now()) / 1000)),
    refresh_token: shown.refresh_token,
    scope: row.scope,
  };
}

function requestedScope(params: Record<string, string>): TokenScope | null {
  if (params.scope === undefined || params.scope.trim() === '') return null;
  const scope = parseScope(params.scope);
  if (scope === null) throw new OAuthError(400, 'invalid_scope', "Allowed scopes are 'read' and 'write'.");
  return scope;
}

/** grant_type=password: the user's own username and password for a token issued to the application. */
async function passwordGrant(services: Services, request: FastifyRequest, params: Record<string, string>, app: ApplicationRow) {
  const { db } = services;
  if (app.authorization_grant_type !== 'password') {
    throw new OAuthError(400, 'unauthorized_client', 'This application may not use the password grant: its authorization_grant_type is not password.');
  }
  const username = required(params, 'username').slice(0, 150);
  const password = required(params, 'password');
  const scope = requestedScope(params) ?? 'write';
  const client = clientOf(request);
  const via = { via: 'oauth2_password_grant', client_id: app.client_id };

  const result = await attemptPasswordLogin(services, username, password, client, via);
  if ('throttled' in result) {
    throw new OAuthError(429, 'invalid_grant', TOO_MANY_ATTEMPTS(result.throttled.retryAfter), {
      'Retry-After': String(result.throttled.retryAfter),
    });
  }
  if ('invalid' in result) throw new OAuthError(400, 'invalid_grant', 'Invalid credentials given.');
  const { user } = result;
  const ctx = callerIn(services, user);
  // A password alone makes no token for a user who must pass a second factor (docs/authentication.md).
  if (await secondFactorRequired(db, user.id)) {
    await recordAudit(db, {
      type: 'auth.login', outcome: 'denied', ctx, target: { type: 'user', id: user.id, name: user.username }, client,
      detail: { reason: 'second_factor_required', ...via },
    });
    throw new OAuthError(400, 'invalid_grant', 'This user must pass a second factor: the password grant cannot give one a token. Create the token from a browser session that passed it.');
  }
  const tokens = services.resources.get('o_auth2_access_token');
  if (!(await isVisible(db, ctx, services.resources.get('o_auth2_application'), app.id))) {
    throw new OAuthError(400, 'invalid_grant', "The user may not use this application: it belongs to an organization the user is not a member of.");
  }
  const row = await db.transaction((tx) => createObject<TokenRow>(tx, ctx, tokens, { description: `${app.name}: password grant`, application: app.id, scope }));
  return row;
}

/** grant_type=refresh_token: a new access token (and refresh token) for the refresh token; the old pair is revoked. */
async function refreshGrant(services: Services, params: Record<string, string>, app: ApplicationRow) {
  const { db } = services;
  const refreshToken = required(params, 'refresh_token');
  const requested = requestedScope(params);
  const tokens = services.resources.get('o_auth2_access_token');
  return db.transaction(async (tx) => {
    const [old] = await tx.query<TokenRow>('SELECT * FROM tokens WHERE refresh_token_hash = $1 FOR UPDATE', [hashSecret(refreshToken)]);
    if (!old || old.application_id !== app.id) throw new OAuthError(400, 'invalid_grant', 'Invalid refresh token.');
    if (new Date(old.expires).getTime() + refreshTokenLifetime(services.settings) * 1000 <= Date.now()) throw new OAuthError(400, 'invalid_grant', 'Refresh token expired.');
    const [owner] = await tx.query<OwnerRow>('SELECT id, username, is_superuser, is_system_auditor, is_active FROM users WHERE id = $1', [old.user_id]);
    if (!owner?.is_active) throw new OAuthError(400, 'invalid_grant', 'User inactive or deleted.');
    if (requested === 'write' && old.scope === 'read') throw new OAuthError(400, 'invalid_scope', 'The requested scope exceeds the scope granted by the resource owner.');
    const ctx = callerIn(services, toCurrentUser(owner));
    if (!(await isVisible(tx, ctx, services.resources.get('o_auth2_application'), app.id))) throw new OAuthError(400, 'invalid_grant', 'The user may no longer use this application.');
    await removeObject(tx, ctx, tokens, old);
    return createObject<TokenRow>(tx, ctx, tokens, { description: old.description, application: app.id, scope: requested ?? old.scope });
  });
}

async function revoke(services: Services, request: FastifyRequest, reply: FastifyReply) {
  const params = readParams(request.body);
  const token = required(params, 'token');
  const app = await authenticateClient(services, request, params);
  const tokens = services.resources.get('o_auth2_access_token');
  await services.db.transaction(async (tx) => {
    // An access token or a refresh token of this application; revoking either ends both. An
    // unknown token, or another application's, changes nothing and answers the same (RFC 7009).
    const [row] = await tx.query<TokenRow>('SELECT * FROM tokens WHERE (token_hash = $1 OR refresh_token_hash = $1) AND application_id = $2 FOR UPDATE', [
      hashSecret(token),
      app.id,
    ]);
    if (!row) return;
    const [owner] = await tx.query<OwnerRow>('SELECT id, username, is_superuser, is_system_auditor, is_active FROM users WHERE id = $1', [row.user_id]);
    await removeObject(tx, callerIn(services, toCurrentUser(owner)), tokens, row);
  });
  return reply.code(200).headers({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).send();
}

/**
 * The OAuth2 provider at /api/o/: the token endpoint (password and refresh_token grants) and
 * token revocation. These are the only endpoints that read form bodies besides the login.
 */
export async function registerOAuth2Routes(app: FastifyInstance, services: Services): Promise<void> {
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_request, body, done) => {
      const params: Record<string, string | string[]> = {};
      for (const [name, value] of new URLSearchParams(body as string)) {
        const seen = params[name];
        params[name] = seen === undefined ? value : [...[seen].flat(), value];
      }
      done(null, params);
    });
    const parses = ['application/x-www-form-urlencoded', 'application/json'];

    oauthRoute(scope, OAUTH2_ROOT, false, {
      GET: async () => ({ token: TOKEN_URL, revoke_token: REVOKE_URL }),
      OPTIONS: async () => viewOptions('API OAuth 2 Authorization Root', 'The OAuth2 endpoints.'),
    }, oauthRootSchemas);

    oauthRoute(scope, TOKEN_URL, true, {
      OPTIONS: async () => ({
        ...viewOptions('OAuth 2 Token', 'Issues access tokens: grant_type password (username, password, scope) or refresh_token, with client authentication.'),
        parses,
      }),
      POST: async (request, reply) => {
        reply.headers({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
        const params = readParams(request.body);
        const grantType = required(params, 'grant_type');
        if (grantType !== 'password' && grantType !== 'refresh_token') {
          throw new OAuthError(400, 'unsupported_grant_type', `The grant type "${grantType}" is not supported here: use password or refresh_token.`);
        }
        const client = await authenticateClient(services, request, params);
        const row = grantType === 'password' ? await passwordGrant(services, request, params, client) : await refreshGrant(services, params, client);
        return tokenResponse(row, reply);
      },
    }, tokenSchemas);

    oauthRoute(scope, REVOKE_URL, true, {
      OPTIONS: async () => ({ ...viewOptions('Revoke Access Token', 'Revokes an access or refresh token (token=...), with client authentication.'), parses }),
      POST: async (request, reply) => revoke(services, request, reply),
    }, revokeSchemas);
  });
}
