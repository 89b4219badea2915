import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../api/context.ts';
import { sessionContext } from './session-auth.ts';
import { ApiError, ValidationError, type FieldErrors } from '../api/errors.ts';
import { viewOptions } from '../api/options.ts';
import { routeMethods } from '../api/resource-routes.ts';
import { clientOf, recordAudit } from '../audit/record.ts';
import { PUBLIC } from '../api/permissions.ts';
import { PRODUCT_NAME } from '../version.ts';
import { checkSignInCsrf } from './csrf.ts';
import {
  clearCsrfCookie,
  clearSessionCookie,
  endSession,
  ensureCsrfCookie,
  SESSION_COOKIE,
  SESSION_COOKIE_HEADER,
} from './sessions.ts';
import { attemptPasswordLogin, TOO_MANY_ATTEMPTS } from './password-login.ts';
import { insecureLoginMessage, loginInsecure, startSession } from './session-start.ts';
import { loginSchemas, logoutSchemas } from './auth-schemas.ts';
import { meObject } from './me.ts';
import { secondFactorRequired } from './second-factor.ts';

export const LOGIN_URL = '/api/login/';
export const LOGOUT_URL = '/api/logout/';
const DEFAULT_NEXT = '/api/';
const FORM_BODY_LIMIT = 64 * 1024;

/**
 * Where a form login may send the browser: a path on this site only ("/api/v2/"), never another
 * host ("//evil.example", "https://evil.example", "/\\evil.example"), so the login form cannot be
 * used as an open redirect.
 */
export function safeNext(value: unknown): string | null {
  if (typeof value !== 'string' || value === '' || value.length > 2048) return null;
  if (!value.startsWith('/') || value.startsWith('//')) return null;
  // Browsers read "\" as "/" and drop tabs and newlines, which would turn "/\t/evil" into "//evil".
  if (/[\\\u0000-\u0020\u007f]/.test(value)) return null;
  try {
    const base = 'http://drover.invalid';
    if (new URL(value, base).origin !== base) return null;
  } catch {
    return null;
  }
  return value;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function loginPage(opts: { csrfToken: string; next: string | null; error?: string; notice?: string; username?: string }): string {
  const message = (text: string | undefined, cls: string) => (text ? `<p class="${cls}">${escapeHtml(text)}</p>` : '');
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(PRODUCT_NAME)} REST API: log in</title>
<style>body{font-family:sans-serif;max-width:24rem;margin:4rem auto}label{display:block;margin-top:1rem}input{width:100%}.error{color:#b00}.notice{color:#850}</style></head>
<body>
<h1>${escapeHtml(PRODUCT_NAME)} REST API</h1>
${message(opts.notice, 'notice')}${message(opts.error, 'error')}
<form method="post" action="${LOGIN_URL}">
<input type="hidden" name="csrfmiddlewaretoken" value="${escapeHtml(opts.csrfToken)}">
${opts.next ? `<input type="hidden" name="next" value="${escapeHtml(opts.next)}">` : ''}
<label>Username <input name="username" autocomplete="username" value="${escapeHtml(opts.username ?? '')}" required autofocus></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<p><button type="submit">Log in</button></p>
</form>
</body>
</html>
`;
}

const isForm = (request: FastifyRequest) => /^application\/x-www-form-urlencoded\b/i.test(request.headers['content-type'] ?? '');
const wantsHtml = (request: FastifyRequest) => /\btext\/html\b/i.test(request.headers.accept ?? '');

interface LoginBody {
  username: string;
  password: string;
  next: string | null;
  formToken?: string;
}

const firstValue = (v: unknown) => (Array.isArray(v) ? v[v.length - 1] : v);

function readLoginBody(body: unknown): LoginBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ApiError(400, { detail: 'Expected username and password.' });
  const b = body as Record<string, unknown>;
  const errors: FieldErrors = {};
  const text = (name: string) => {
    const v = firstValue(b[name]);
    if (v === undefined || v === null || v === '') errors[name] = ['This field is required.'];
    else if (typeof v !== 'string') errors[name] = ['Not a valid string.'];
    else if (v.includes('\u0000')) errors[name] = ['Null characters are not allowed.'];
    else return v;
    return '';
  };
  const username = text('username');
  const password = text('password');
  if (Object.keys(errors).length) throw new ValidationError(errors);
  const token = firstValue(b.csrfmiddlewaretoken);
  return { username, password, next: safeNext(firstValue(b.next)), formToken: typeof token === 'string' ? token : undefined };
}

/** GET/POST /api/login/ and /api/logout/. Only these routes accept form bodies. */
export async function registerLoginRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const { db } = services;

  await app.register(async (scope) => {
    await scope.register(formbody, { bodyLimit: FORM_BODY_LIMIT });

    routeMethods(scope, LOGIN_URL, PUBLIC, {
      GET: async (request, reply) => {
        const csrfToken = ensureCsrfCookie(services, request, reply);
        reply.header(SESSION_COOKIE_HEADER, SESSION_COOKIE);
        const notice = loginInsecure(services, request) ? insecureLoginMessage(services, request) : undefined;
        const next = safeNext(firstValue((request.query as Record<string, unknown>).next));
        return reply.type('text/html; charset=utf-8').send(loginPage({ csrfToken, next, notice }));
      },
      OPTIONS: async () => ({
        ...viewOptions('Login', 'Starts a browser session: POST username and password as JSON or as a form.'),
        parses: ['application/json', 'application/x-www-form-urlencoded'],
      }),
      POST: async (request, reply) => login(services, request, reply),
    }, loginSchemas, { csrfExempt: true, secondFactorExempt: true });

    routeMethods(scope, LOGOUT_URL, PUBLIC, {
      GET: async () => ({ detail: `POST to ${LOGOUT_URL} to end your session.` }),
      OPTIONS: async () => viewOptions('Logout', 'Ends the browser session: POST here.'),
      POST: async (request, reply) => {
        const key = request.cookies[SESSION_COOKIE];
        const ended = key ? await endSession(db, key) : null;
        if (ended) {
          await recordAudit(db, {
            type: 'auth.logout',
            ctx: request.ctx.user?.id === ended.userId ? request.ctx : sessionContext(services, { id: ended.userId, username: ended.username, isSuperuser: false, isSystemAuditor: false }),
            target: { type: 'user', id: ended.userId, name: ended.username },
            client: clientOf(request),
          });
        }
        clearSessionCookie(services, reply);
        clearCsrfCookie(services, reply);
        const body = (request.body ?? {}) as Record<string, unknown>;
        const next = safeNext(firstValue((request.query as Record<string, unknown>).next) ?? (typeof body === 'object' ? firstValue(body.next) : undefined));
        if (next) return reply.code(302).header('Location', next).send();
        return reply.code(204).send();
      },
    }, logoutSchemas, { secondFactorExempt: true });
  });
}

async function login(services: Services, request: FastifyRequest, reply: FastifyReply) {
  const { db } = services;
  const form = isForm(request);
  const client = clientOf(request);
  const attempt = sessionContext(services, null);

  /** A refusal: HTML (the form again, with the message) for a browser's form post, else JSON. */
  const refuse = (status: number, detail: string, username = '', next: string | null = null) => {
    if (form && wantsHtml(request)) {
      const csrfToken = ensureCsrfCookie(services, request, reply);
      return reply.code(status).type('text/html; charset=utf-8').send(loginPage({ csrfToken, next, error: detail, username }));
    }
    return reply.code(status).send({ detail });
  };

  reply.header(SESSION_COOKIE_HEADER, SESSION_COOKIE);
  if (loginInsecure(services, request)) {
    const username = firstValue((request.body as Record<string, unknown> | undefined)?.username);
    await recordAudit(db, {
      type: 'auth.login',
      outcome: 'failure',
      ctx: attempt,
      actorUsername: typeof username === 'string' ? username.replace(/\u0000/g, '').slice(0, 150) : '',
      client,
      detail: { reason: 'insecure_transport' },
    });
    return refuse(400, insecureLoginMessage(services, request));
  }

  const body = readLoginBody(request.body);
  checkSignInCsrf(services, request, body.formToken);
  const username = body.username.slice(0, 150);

  const result = await attemptPasswordLogin(services, username, body.password, client);
  if ('throttled' in result) {
    reply.header('Retry-After', String(result.throttled.retryAfter));
    return refuse(429, TOO_MANY_ATTEMPTS(result.throttled.retryAfter), username, body.next);
  }
  if ('invalid' in result) return refuse(401, 'Invalid username or password.', username, body.next);
  const { user } = result;
  await startSession(services, request, reply, user);
  if (form) return reply.code(302).header('Location', body.next ?? DEFAULT_NEXT).send();
  // A password opens a session that must still pass the second factor when an organization asks for one.
  const ctx = sessionContext(services, user);
  ctx.secondFactorPending = await secondFactorRequired(db, user.id);
  return reply.send(await meObject(services, ctx));
}
