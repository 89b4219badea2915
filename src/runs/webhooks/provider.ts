/**
 * What the receivers need of each webhook service: how a delivery proves it knows the template's
 * key, which events launch, the delivery's id and the commit it is about, and where that
 * commit's status is posted.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** One received request, as the provider sent it. */
export interface Delivery {
  headers: IncomingHttpHeaders;
  /** The body's bytes exactly as received (what signatures are computed over). */
  raw: Buffer;
  /** The body as a JSON object ({} when it is not one). */
  payload: Record<string, unknown>;
}

/** What a delivery asks for, once authenticated. */
export type EventReading =
  | { launch: false; reason: string }
  | { launch: true; type: string; guid: string; ref: string | null; statusApi: string | null };

export interface WebhookProvider {
  /** The service's name (webhook_service) and the receiver's URL segment. */
  service: string;
  label: string;
  /** Whether the delivery carries proof of the key; false answers 403. */
  authentic(delivery: Delivery, key: string): boolean;
  read(delivery: Delivery): EventReading;
  /** How the credential's token is sent to the status API, and the body for one state. */
  statusRequest(token: string, state: CommitState, targetUrl: string): { headers: Record<string, string>; body: Record<string, unknown> };
  /** Where the status is posted when the service wants it elsewhere than the status API URL alone (query strings). */
  /** A test delivery the service sends unsigned: answered 200 without a launch, whatever its signature. */
  unsignedPing?(delivery: Delivery): boolean;
}

/** The states a run reports: pending while it has not finished, then how it finished. */
export type CommitState = 'pending' | 'running' | 'successful' | 'failed' | 'error' | 'canceled';

/** The context every status is posted under, as AWX's open-source build names it. */
export const STATUS_CONTEXT = 'ansible/awx';

/** Equality of two byte strings in time independent of where they differ. */
export function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Whether `given` (hex) is the HMAC of the body under the key. */
export function hmacMatches(algorithm: 'sha1' | 'sha256', key: string, raw: Buffer, given: string | undefined): boolean {
  if (!given || !/^[0-9a-f]+$/i.test(given)) return false;
  const expected = createHmac(algorithm, Buffer.from(key, 'utf8')).update(raw).digest();
  return sameBytes(expected, Buffer.from(given.toLowerCase(), 'hex'));
}

/** A header's value as one string (the first when repeated), '' when absent. */
export function header(delivery: Delivery, name: string): string {
  const value = delivery.headers[name.toLowerCase()];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** The value at a dotted path of the payload ('pull_request.head.sha', 'changes.0.toHash'), or null. */
export function pathValue(payload: unknown, path: string): unknown {
  let value: unknown = payload;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return null;
    value = Array.isArray(value) ? (/^\d+$/.test(part) ? value[Number(part)] : undefined) : (value as Record<string, unknown>)[part];
  }
  return value ?? null;
}

const DELETED_REF = /^0{40}$/;

/** A commit or ref named by the payload, as text; null when absent or a deleted ref (all zeros). */
export function refAt(payload: unknown, path: string | undefined): string | null {
  const value = path ? pathValue(payload, path) : null;
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  const text = String(value);
  return DELETED_REF.test(text) ? null : text;
}

/** The scheme and host of an http(s) URL found in a payload, or null. */
export function originOf(url: unknown): string | null {
  if (typeof url !== 'string') return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : null;
  } catch {
    return null;
  }
}

/** A commit id safe to put in a URL path: hexadecimal only. */
export const commitInPath = (ref: string | null): string | null => (ref && /^[0-9a-f]{7,64}$/i.test(ref) ? ref : null);
