/**
 * POST /api/v2/eda_webhooks/{webhook_path}/: the public receiver of event rules (the order of its
 * checks: docs/event-driven.md#the-receiver). It reads no login: the signature over the body's raw
 * bytes, made with the rule's key, is the authentication. An accepted event is
 * stored (src/eda/intake.ts) and answered 202 at once; the evaluation loop does the rest. A copy of
 * an accepted delivery is refused (409), a signed timestamp outside its tolerance too (403), and
 * refused deliveries, which are stored, are throttled per rule and address (src/eda/refusal-throttle.ts).
 */
import type { FastifyReply } from 'fastify';
import { ApiError, forbidden } from '../api/errors.ts';
import { jsonTextTooDeep } from '../db/json-depth.ts';
import type { RouteModule } from '../api/extra-routes.ts';
import { viewOptions } from '../api/options.ts';
import { PUBLIC } from '../api/permissions.ts';
import { routeMethods } from '../api/resource-routes.ts';
import { MAX_DELIVERY_BYTES, parsePayload, RawBody } from '../runs/webhooks/receiver-routes.ts';
import { EventIntake } from './intake.ts';
import { RefusalThrottle } from './refusal-throttle.ts';
import { eventGuid, eventType, keptHeaders, TIMESTAMP_TOLERANCE_SECONDS, verifyDelivery } from './sources.ts';

export const RECEIVER_PATH = '/api/v2/eda_webhooks/:path/';
/** What a refused delivery keeps of its body. */
const MAX_REFUSED_PAYLOAD = 64 * 1024;

/** The body of a refused delivery, as far as it is kept: its JSON when small and whole, else its first 64 KiB as text. */
function refusedPayload(raw: Buffer): unknown {
  if (raw.length <= MAX_REFUSED_PAYLOAD && !jsonTextTooDeep(raw.toString('utf8'))) {
    try {
      const value = JSON.parse(raw.toString('utf8'));
      if (value && typeof value === 'object' && !Array.isArray(value)) return value;
    } catch {
      // Kept as text below.
    }
  }
  return { raw: raw.subarray(0, MAX_REFUSED_PAYLOAD).toString('utf8'), truncated: raw.length > MAX_REFUSED_PAYLOAD };
}

const STALE = `The delivery's X-Svc-Timestamp is more than ${TIMESTAMP_TOLERANCE_SECONDS} seconds from the service's clock.`;
const REPLAYED = 'This delivery was already accepted: its signature may be used once.';

function tooManyRefused(reply: FastifyReply, retryAfter: number): ApiError {
  reply.header('Retry-After', String(retryAfter));
  return new ApiError(429, { detail: `Too many deliveries with a missing or wrong signature. Try again in ${retryAfter} seconds.` });
}

export const edaReceiverRoutes: RouteModule = async (app, services) => {
  const intake = new EventIntake(services.db);
  const refusals = new RefusalThrottle(services.db);
  const unlisten = await services.caches.receivingRules.listen(services.db);
  app.addHook('onClose', async () => {
    await intake.drained();
    await unlisten().catch(() => undefined);
  });

  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_DELIVERY_BYTES }, (_request, body, done) => done(null, new RawBody(body as Buffer)));
    // The signature is the authentication: a login cookie or token the sender might carry is not read.
    scope.addHook('onRoute', (route) => {
      route.config = { ...(route.config as object), ownAuthentication: true, csrfExempt: true } as typeof route.config;
    });
    routeMethods(scope, RECEIVER_PATH, PUBLIC, {
      POST: async (request, reply) => {
        const raw = request.body instanceof RawBody ? request.body.bytes : Buffer.alloc(0);
        const rule = await services.caches.receivingRules.find(services.db, (request.params as { path: string }).path);
        if (!rule || !rule.enabled) throw forbidden();
        const base = { ruleId: rule.id, ruleName: rule.name, organizationId: rule.organization_id, sourceType: rule.source_type, sourceIp: request.ip, headers: keptHeaders(request.headers) };
        const verdict = verifyDelivery(rule.source_type, request.headers, raw, rule.key);
        if (!verdict.accepted) {
          const admission = await refusals.admit(rule.id, request.ip);
          if ('retryAfter' in admission) throw tooManyRefused(reply, admission.retryAfter);
          try {
            const payload = refusedPayload(raw);
            await intake.store({ ...base, payload, eventType: '', guid: eventGuid(rule.source_type, request.headers, {}, raw), status: 'signature_failed' });
          } finally {
            admission.release();
          }
          // A stale signature is a real one (its sender's, or a captured copy): saying so reveals nothing more.
          throw verdict.stale ? new ApiError(403, { detail: STALE }) : forbidden();
        }
        const payload = parsePayload(raw, String(request.headers['content-type'] ?? ''));
        const stored = await intake.store({
          ...base, payload, eventType: eventType(rule.source_type, request.headers, payload), guid: eventGuid(rule.source_type, request.headers, payload, raw), status: 'received',
          signatureDigest: verdict.signedDigest,
        });
        if ('id' in stored) return reply.code(202).send({ event_log_id: stored.id });
        if (stored.already === 'signature') throw new ApiError(409, { detail: REPLAYED });
        return reply.code(202).send({ detail: 'Event previously received.' });
      },
      OPTIONS: async () => ({
        ...viewOptions('Event Receiver', "POST: an event for the rule at this path, signed with the rule's key; answered 202 and evaluated in the background."),
        parses: ['application/json', 'application/x-www-form-urlencoded'],
      }),
    }, { POST: { summary: 'Receive an event for an event rule' } });
  });
};
