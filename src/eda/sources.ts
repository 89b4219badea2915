/**
 * What the public receiver reads from a delivery, per source type (document 2, Authentication; BEHAVIOUR.md
 * "Event-driven automation"): how the sender proves it holds the rule's key, the event's id (which a
 * repeated delivery shares) and its type, and which headers are kept with the log and offered to conditions.
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

/** Whether the delivery's raw bytes were signed with the rule's key, as its source type signs. */
export function authentic(source: string, headers: IncomingHttpHeaders, body: Buffer, key: string): boolean {
  if (!key) return false;
  switch (source) {
    case 'webhook_codehost_a': {
      const sha256 = header(headers, 'x-codehosta-signature-256');
      if (sha256) return signedWith(sha256, 'sha256', key, body);
      return signedWith(header(headers, 'x-codehosta-signature'), 'sha1', key, body);
    }
    case 'webhook_codehost_b':
      return sameToken(header(headers, 'x-codehostb-token'), key);
    default:
      return signedWith(header(headers, 'x-svc-signature'), 'sha256', key, body);
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
