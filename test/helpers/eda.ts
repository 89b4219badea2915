/** Events as senders post them to the event rule receiver, signed as each source type signs. */
import { createHmac } from 'node:crypto';
import type { Response, TestApp } from './app.ts';

export const receiverUrl = (path: string) => `/api/v2/eda_webhooks/${path}/`;

/** The signature headers of `body` for a rule of `source` with `key`. */
export function signatureHeaders(source: string, key: string, body: string, algorithm: 'sha256' | 'sha1' = 'sha256'): Record<string, string> {
  const digest = createHmac(algorithm, key).update(body).digest('hex');
  if (source === 'webhook_codehost_a') return algorithm === 'sha256' ? { 'x-codehosta-signature-256': `sha256=${digest}` } : { 'x-codehosta-signature': `sha1=${digest}` };
  if (source === 'webhook_codehost_b') return { 'x-codehostb-token': key };
  return { 'x-svc-signature': `sha256=${digest}` };
}

/** Posts `payload` (an object, or raw text) to the receiver at `path`, unauthenticated, with `headers`. */
export function postEvent(t: TestApp, path: string, payload: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return t.request('POST', receiverUrl(path), { as: null, payload: body, headers: { 'content-type': 'application/json', ...headers } });
}

/** Posts `payload` signed with `key` as a rule of `source` expects. */
export function sendEvent(t: TestApp, path: string, key: string, payload: unknown, options: { source?: string; headers?: Record<string, string> } = {}): Promise<Response> {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return postEvent(t, path, body, { ...signatureHeaders(options.source ?? 'webhook_generic', key, body), ...options.headers });
}
