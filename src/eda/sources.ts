/**
 * What the public receiver reads from a delivery, per source type (docs/event-driven.md#the-receiver):
 * how the sender proves it holds the rule's key, the event's id (which a repeated delivery shares)
 * and its type, and which headers are kept with the log and offered to conditions.
 *
 * X-Svc-Signature signs the body. A sender may also sign the time it sends, as Stripe and
 * Slack do: with `X-Svc-Timestamp: <unix seconds>`, the signature is the HMAC of `<timestamp>.<body>`,
 * and the delivery is refused more than TIMESTAMP_TOLERANCE_SECONDS away from the service's clock.
 * Either way an accepted delivery leaves the digest of what was signed, which the log keeps: a copy
 * is refused however its unsigned headers (X-Request-Id, a delivery id) are changed.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';


const MAX_GUID = 128;
const MAX_EVENT_TYPE = 128;
const MAX_KEPT_HEADERS = 50;
const MAX_HEADER_VALUE = 1_024;
/** Never kept: credentials, the signatures themselves and transport details. */
const UNKEPT_HEADERS = new Set([
  'authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-codehostb-token', 'x-svc-signature', 'x-codehosta-signature',
  'x-codehosta-signature-256', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'te', 'upgrade', 'expect',
]);

const header = (headers: IncomingHttpHeaders, name: string): string => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] ?? '' : value ?? '';
};

/** Whether `given` is `expected` (hex of an HMAC), compared in constant time. */
function sameDigest(given: string, expected: Buffer): boolean {
  if (!/^[0-9a-f]+$/i.test(given) || given.length !== expected.length * 2) return false;
  return timingSafeEqual(Buffer.from(given, 'hex'), expected);
}

/** `<algorithm>=<hex>` of an HMAC of the body, as the header carries it. */
function signedWith(headerValue: string, algorithm: 'sha256' | 'sha1', key: string, body: Buffer): boolean {
  const prefix = `${algorithm}=`;
  if (!headerValue.startsWith(prefix)) return false;
  return sameDigest(headerValue.slice(prefix.length), createHmac(algorithm, key).update(body).digest());
}

/** A token compared in constant time whatever its length (their digests are compared). */
function sameToken(given: string, key: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return given.length > 0 && timingSafeEqual(digest(given), digest(key));
}

/** How far a signed timestamp may be from the service's clock, either way. */
export const TIMESTAMP_TOLERANCE_SECONDS = 300;
const TIMESTAMP = /^\d{1,12}$/;

/**
 * Accepted, with the digest of the signed bytes (null for a token, which signs nothing); or refused,
 * `stale` when the signature holds but its timestamp is outside the tolerance.
 */
export type Verdict = { accepted: true; signedDigest: string | null } | { accepted: false; stale: boolean };

const refused: Verdict = { accepted: false, stale: false };
const acceptedOver = (signed: Buffer): Verdict => ({ accepted: true, signedDigest: createHash('sha256').update(signed).digest('hex') });

/** Whether the delivery was signed with the rule's key, as its source type signs, and what it signed. */
export function verifyDelivery(source: string, headers: IncomingHttpHeaders, body: Buffer, key: string, now = Date.now()): Verdict {
  if (!key) return refused;
  switch (source) {
    case 'webhook_codehost_a': {
      // Both algorithms sign the same bytes: the digest is that of the body, so a copy stripped of one header is still a copy.
      const sha256 = header(headers, 'x-codehosta-signature-256');
      const ok = sha256 ? signedWith(sha256, 'sha256', key, body) : signedWith(header(headers, 'x-codehosta-signature'), 'sha1', key, body);
      return ok ? acceptedOver(body) : refused;
    }
    case 'webhook_codehost_b':
      return sameToken(header(headers, 'x-codehostb-token'), key) ? { accepted: true, signedDigest: null } : refused;
    default: {
      const timestamp = header(headers, 'x-svc-timestamp');
      if (!timestamp) return signedWith(header(headers, 'x-svc-signature'), 'sha256', key, body) ? acceptedOver(body) : refused;
      if (!TIMESTAMP.test(timestamp)) return refused;
      const signed = Buffer.concat([Buffer.from(`${timestamp}.`), body]);
      if (!signedWith(header(headers, 'x-svc-signature'), 'sha256', key, signed)) return refused;
      if (Math.abs(now / 1000 - Number(timestamp)) > TIMESTAMP_TOLERANCE_SECONDS) return { accepted: false, stale: true };
      return acceptedOver(signed);
    }
  }
}

const fit = (text: string) => (text.length > MAX_GUID ? createHash('sha256').update(text).digest('hex') : text);

/** The event's id: the code host's delivery id, X-Request-Id, the payload's event_id, else the body's digest. */
export function eventGuid(source: string, headers: IncomingHttpHeaders, payload: Record<string, unknown>, body: Buffer): string {
  const given = source === 'webhook_codehost_a'
    ? header(headers, 'x-codehosta-delivery')
    : header(headers, 'x-request-id') || (typeof payload.event_id === 'string' || typeof payload.event_id === 'number' ? String(payload.event_id) : '');
  return given ? fit(given) : createHash('sha256').update(body).digest('hex');
}

/** What happened, for the log and svc_eda_event_type: the code host's event header, else the payload's own word for it. */
export function eventType(source: string, headers: IncomingHttpHeaders, payload: Record<string, unknown>): string {
  const named = source === 'webhook_codehost_a' ? header(headers, 'x-codehosta-event')
    : source === 'webhook_codehost_b' ? header(headers, 'x-codehostb-event')
    : header(headers, 'x-svc-event');
  const fromPayload = [payload.event_type, payload.type].find((v) => typeof v === 'string' && v);
  const type = named || (fromPayload as string | undefined) || (source.startsWith('webhook_') ? 'webhook' : 'alert');
  return type.slice(0, MAX_EVENT_TYPE);
}

/** The headers kept with the event and offered to conditions: lower-case names, no credentials, bounded. */
export function keptHeaders(headers: IncomingHttpHeaders | Record<string, unknown>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [rawName, value] of Object.entries(headers)) {
    const name = rawName.toLowerCase();
    if (UNKEPT_HEADERS.has(name) || value === undefined || value === null) continue;
    if (Object.keys(kept).length >= MAX_KEPT_HEADERS) break;
    kept[name] = (Array.isArray(value) ? value.join(', ') : String(value)).slice(0, MAX_HEADER_VALUE);
  }
  return kept;
}
