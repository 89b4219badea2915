/**
 * SAML 2.0 sign-in: the service provider's metadata, the start of a sign-in at one identity
 * provider (HTTP-Redirect binding) and the assertion consumer service (HTTP-POST binding).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../api/context.ts';
import { ApiError } from '../../api/errors.ts';
import { PUBLIC } from '../../api/permissions.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { clientOf } from '../../audit/record.ts';
import { IDP_NAME } from '../../config/settings/saml-shapes.ts';
import { recordExternalLoginFailure } from '../external/external-user.ts';
import { completeSsoLogin, failSsoLogin } from '../external/sso-session.ts';
import { safeNext } from '../login-routes.ts';
import { checkAnswer, SamlRefused } from './saml-answer.ts';
import { metadataXml, SAML_COMPLETE_URL, SAML_LOGIN_URL, SAML_METADATA_URL, samlFor, SamlNotConfigured, serviceProvider } from './saml-config.ts';
import { samlIdentity, type ExistingGroups } from './saml-identity.ts';
import { REQUEST_LIFETIME_MS, requestStore, useAssertionOnce } from './saml-requests.ts';

/** The browser's half of a sign-in under way: the state RelayState must carry back, and `next`. */
const STATE_COOKIE = 'svc_saml_state';
const FORM_BODY_LIMIT = 1024 * 1024;

const firstValue = (v: unknown) => (Array.isArray(v) ? v[v.length - 1] : v);

/**
 * The identity provider answers with a cross-site POST, which carries only SameSite=None cookies,
 * and browsers keep those only when Secure: over plain HTTP (SESSION_COOKIE_SECURE false, for
 * development) the cookie is Lax and the sign-in works only when the IdP is on the same site.
 */
function setStateCookie(services: Services, reply: FastifyReply, value: string): void {
  const secure = services.env.sessionCookieSecure;
  reply.setCookie(STATE_COOKIE, value, { path: SAML_COMPLETE_URL, httpOnly: true, secure, sameSite: secure ? 'none' : 'lax', maxAge: REQUEST_LIFETIME_MS / 1000 });
}

function clearStateCookie(services: Services, reply: FastifyReply): void {
  const secure = services.env.sessionCookieSecure;
  reply.clearCookie(STATE_COOKIE, { path: SAML_COMPLETE_URL, httpOnly: true, secure, sameSite: secure ? 'none' : 'lax' });
}

function readStateCookie(request: FastifyRequest): { state: string; next: string | null } | null {
  const raw = request.cookies[STATE_COOKIE];
  const bar = raw?.indexOf('|') ?? -1;
  if (!raw || bar < 0) return null;
  return { state: raw.slice(0, bar), next: safeNext(decodeURIComponent(raw.slice(bar + 1))) };
}

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** node-saml's refusals in the user's words; the reason goes to the audit log. */
function describeRefusal(err: Error): { reason: string; message: string } {
  const text = err.message;
  if (/signature/i.test(text)) return { reason: 'bad_signature', message: 'The SAML answer is not validly signed by the identity provider.' };
  if (/InResponseTo/i.test(text)) return { reason: 'unsolicited', message: 'The SAML answer does not answer a sign-in started here (unsolicited, already used or too old). Start again.' };
  if (/expired|not yet valid|subject confirmation/i.test(text)) return { reason: 'expired', message: 'The SAML assertion has expired or is not valid yet.' };
  if (/audience/i.test(text)) return { reason: 'wrong_audience', message: 'The SAML assertion is meant for another service (audience).' };
  if (/status|error:/i.test(text)) return { reason: 'idp_error', message: 'The identity provider did not sign you in.' };
  return { reason: 'invalid_response', message: 'The SAML answer could not be read.' };
}

async function existingGroups(services: Services): Promise<ExistingGroups> {
  const organizations = await services.db.query<{ name: string }>('SELECT name FROM organizations');
  const teams = await services.db.query<{ name: string; organization: string }>('SELECT t.name, o.name AS organization FROM teams t JOIN organizations o ON o.id = t.organization_id');
  return { organizations: organizations.map((o) => o.name), teams };
}

async function startSignIn(services: Services, request: FastifyRequest, reply: FastifyReply) {
  const query = request.query as Record<string, unknown>;
  const idpName = firstValue(query.idp);
  let sp;
  try {
    sp = serviceProvider(services.settings);
  } catch (err) {
    if (err instanceof SamlNotConfigured) return failSsoLogin(reply, 'SAML sign-in is not configured.');
    throw err;
  }
  if (typeof idpName !== 'string' || !IDP_NAME.test(idpName) || !Object.hasOwn(sp.idps, idpName)) {
    return failSsoLogin(reply, 'Unknown SAML identity provider.');
  }
  const state = randomBytes(32).toString('base64url');
  const next = safeNext(firstValue(query.next)) ?? '';
  const saml = samlFor(sp, idpName, requestStore(services.db, idpName, state));
  const location = await saml.getAuthorizeUrlAsync(`${idpName}:${state}`, request.host, {});
  setStateCookie(services, reply, `${state}|${encodeURIComponent(next)}`);
  return reply.code(302).header('Location', location).header('Cache-Control', 'no-store').send();
}

async function completeSignIn(services: Services, request: FastifyRequest, reply: FastifyReply) {
  const body = (request.body ?? {}) as Record<string, unknown>;
  const client = clientOf(request);
  const refuse = async (reason: string, message: string) => {
    clearStateCookie(services, reply);
    await recordExternalLoginFailure(services, 'saml', '', client, reason);
    return failSsoLogin(reply, message);
  };

  const response = firstValue(body.SAMLResponse);
  const relayState = firstValue(body.RelayState);
  if (typeof response !== 'string' || response === '' || typeof relayState !== 'string') return refuse('missing_response', 'The SAML answer is missing.');
  const colon = relayState.indexOf(':');
  const idpName = relayState.slice(0, colon);
  const browser = readStateCookie(request);
  if (colon < 0 || !browser || !sameText(browser.state, relayState.slice(colon + 1))) {
    return refuse('state_mismatch', 'The SAML sign-in was not started in this browser, or took too long. Start again.');
  }
  let sp;
  try {
    sp = serviceProvider(services.settings);
  } catch (err) {
    if (err instanceof SamlNotConfigured) return refuse('not_configured', 'SAML sign-in is not configured.');
    throw err;
  }
  if (!IDP_NAME.test(idpName) || !Object.hasOwn(sp.idps, idpName)) return refuse('unknown_idp', 'Unknown SAML identity provider.');
  const idp = sp.idps[idpName];

  let answer;
  try {
    const saml = samlFor(sp, idpName, requestStore(services.db, idpName, browser.state));
    const { profile } = await saml.validatePostResponseAsync({ SAMLResponse: response });
    if (!profile) return refuse('no_assertion', 'The identity provider did not sign you in.');
    answer = await checkAnswer(profile, idp.entity_id, sp.acsUrl);
  } catch (err) {
    if (err instanceof SamlRefused) return refuse(err.reason, err.message);
    const { reason, message } = describeRefusal(err as Error);
    return refuse(reason, message);
  }
  if (!(await useAssertionOnce(services.db, idpName, answer.assertionId, answer.expires))) {
    return refuse('replayed', 'This SAML assertion has already been used. Start again.');
  }
  let identity;
  try {
    identity = samlIdentity(services.settings, idpName, idp, answer, await existingGroups(services));
  } catch (err) {
    if (err instanceof SamlRefused) return refuse(err.reason, err.message);
    throw err;
  }
  clearStateCookie(services, reply);
  return completeSsoLogin(services, request, reply, identity, browser.next);
}

/** GET /sso/metadata/saml/, GET /sso/login/saml/?idp=, POST /sso/complete/saml/. */
export async function registerSamlRoutes(app: FastifyInstance, services: Services): Promise<void> {
  routeMethods(app, SAML_METADATA_URL, PUBLIC, {
    GET: async (_request, reply) => {
      let sp;
      try {
        sp = serviceProvider(services.settings);
      } catch (err) {
        if (err instanceof SamlNotConfigured) throw new ApiError(404, { detail: err.message });
        throw err;
      }
      return reply.type('text/xml; charset=utf-8').send(metadataXml(sp));
    },
  });

  routeMethods(app, SAML_LOGIN_URL, PUBLIC, { GET: (request, reply) => startSignIn(services, request, reply) });

  await app.register(async (scope) => {
    await scope.register(formbody, { bodyLimit: FORM_BODY_LIMIT });
    // The identity provider's POST comes from another site, with neither session nor CSRF token:
    // RelayState bound to the browser's state cookie and InResponseTo bound to both stand for it.
    routeMethods(scope, SAML_COMPLETE_URL, PUBLIC, { POST: (request, reply) => completeSignIn(services, request, reply) }, {}, { csrfExempt: true });
  });
}
