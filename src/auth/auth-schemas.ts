/**
 * Schemas of the login, logout and OAuth2 endpoints. They describe; the handlers read their
 * bodies themselves (forms and JSON alike, OAuth2 errors in RFC 6749's shape).
 */
import { Type } from 'typebox';
import { OPTIONS_RESPONSE } from '../api/action-schemas.ts';
import type { MethodSchema } from '../api/route-schemas.ts';

const FORM_OR_JSON = ['application/json', 'application/x-www-form-urlencoded'];
const Redirect = { type: 'null', description: 'A form login or logout with next: redirects there (302).' };

export const LoginBody = Type.Object({
  username: Type.String(),
  password: Type.String({ writeOnly: true }),
  next: Type.Optional(Type.String({ description: 'Where a form login sends the browser: a path on this site.' })),
  csrfmiddlewaretoken: Type.Optional(Type.String({ description: 'The csrftoken cookie, for form logins.' })),
});

export const loginSchemas: Record<string, MethodSchema> = {
  GET: { summary: 'The login form (sets the csrftoken cookie)', produces: ['text/html'] },
  POST: {
    summary: 'Start a browser session',
    consumes: FORM_OR_JSON,
    body: LoginBody,
    response: { 200: Type.Object({ id: Type.Integer(), username: Type.String() }, { additionalProperties: true, description: 'The user (JSON logins).' }), 302: Redirect },
  },
  OPTIONS: OPTIONS_RESPONSE,
};

export const logoutSchemas: Record<string, MethodSchema> = {
  GET: { summary: 'How to log out', response: { 200: Type.Object({ detail: Type.String() }) } },
  POST: {
    summary: 'End the browser session',
    consumes: FORM_OR_JSON,
    body: Type.Object({ next: Type.Optional(Type.String()) }),
    response: { 204: { type: 'null', description: 'Logged out.' }, 302: Redirect },
  },
  OPTIONS: OPTIONS_RESPONSE,
};

const OAuthError = Type.Object({ error: Type.String(), error_description: Type.String() });

export const TokenRequest = Type.Object({
  grant_type: Type.Enum(['password', 'refresh_token']),
  username: Type.Optional(Type.String({ description: 'grant_type=password' })),
  password: Type.Optional(Type.String({ writeOnly: true, description: 'grant_type=password' })),
  refresh_token: Type.Optional(Type.String({ description: 'grant_type=refresh_token' })),
  scope: Type.Optional(Type.Enum(['read', 'write'])),
  client_id: Type.Optional(Type.String({ description: 'Or HTTP Basic with client_id and client_secret.' })),
  client_secret: Type.Optional(Type.String({ writeOnly: true })),
});

export const tokenSchemas: Record<string, MethodSchema> = {
  POST: {
    summary: 'Issue an access token (password or refresh_token grant)',
    consumes: FORM_OR_JSON,
    body: TokenRequest,
    response: {
      200: Type.Object({ access_token: Type.String(), token_type: Type.String(), expires_in: Type.Integer(), refresh_token: Type.String(), scope: Type.String() }),
      400: OAuthError,
      401: OAuthError,
    },
  },
  OPTIONS: OPTIONS_RESPONSE,
};

export const RevokeRequest = Type.Object({
  token: Type.String({ description: 'An access token or a refresh token; either revokes both.' }),
  client_id: Type.Optional(Type.String()),
  client_secret: Type.Optional(Type.String({ writeOnly: true })),
});

export const revokeSchemas: Record<string, MethodSchema> = {
  POST: { summary: 'Revoke a token', consumes: FORM_OR_JSON, body: RevokeRequest, response: { 200: { type: 'null', description: 'Revoked (or unknown).' }, 400: OAuthError, 401: OAuthError } },
  OPTIONS: OPTIONS_RESPONSE,
};

export const oauthRootSchemas: Record<string, MethodSchema> = {
  GET: { summary: 'The OAuth2 endpoints', response: { 200: Type.Object({ token: Type.String(), revoke_token: Type.String() }) } },
  OPTIONS: OPTIONS_RESPONSE,
};
