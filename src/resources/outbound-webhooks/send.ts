/**
 * One attempt at a delivery: the body signed with the webhook's key, posted through the guard for
 * user URLs (src/net/outbound.ts), and what it came to, recorded on the webhook (last_status,
 * last_sent_at, last_error). The sender loop and the test endpoint both come here.
 */
import type { Queryable, Row } from '../../db/database.ts';
import { OutboundRefused, sendOutbound, type OutboundPolicy } from '../../net/outbound.ts';
import { PRODUCT_NAME, VERSION } from '../../version.ts';
import { keyOf, signatureOf } from './signing-key.ts';

const TIMEOUT_MS = 10_000;
/** The answer is not read for anything but an error message. */
const MAX_RESPONSE_BYTES = 64 * 1024;
const MAX_ERROR_LENGTH = 1000;
const QUOTED_ANSWER_LENGTH = 200;

export interface Attempt {
  /** The HTTP status answered, or null when there was no answer. */
  status: number | null;
  ok: boolean;
  /** '' when ok. */
  error: string;
  /** Whether trying again later may go better (not for a URL the guard refuses). */
  retry: boolean;
}

const clip = (text: string, length: number) => (text.length > length ? `${text.slice(0, length)}…` : text);

/** Posts `body` to the webhook's URL, signed; never throws. */
export async function attemptDelivery(webhook: Row, body: string, policy: OutboundPolicy): Promise<Attempt> {
  try {
    const headers: Record<string, string> = {
      'User-Agent': `${PRODUCT_NAME}-Webhook/${VERSION}`,
      ...(webhook.custom_headers as Record<string, string>),
      'Content-Type': 'application/json',
      'X-Svc-Signature': signatureOf(keyOf(webhook), body),
    };
    const response = await sendOutbound(
      { url: String(webhook.url), method: 'POST', headers, body, timeoutMs: TIMEOUT_MS, maxResponseBytes: MAX_RESPONSE_BYTES, verifyTls: webhook.ssl_verify !== false, maxRedirects: 0 },
      policy,
    );
    if (response.status >= 200 && response.status < 300) return { status: response.status, ok: true, error: '', retry: false };
    const answer = response.status >= 300 && response.status < 400
      ? `redirects are not followed${response.headers.location ? ` (Location: ${clip(response.headers.location, QUOTED_ANSWER_LENGTH)})` : ''}`
      : clip(response.body.trim(), QUOTED_ANSWER_LENGTH);
    return { status: response.status, ok: false, error: clip(`HTTP ${response.status}${answer ? `: ${answer}` : ''}`, MAX_ERROR_LENGTH), retry: true };
  } catch (err) {
    const message = clip(err instanceof Error ? err.message : String(err), MAX_ERROR_LENGTH);
    return { status: null, ok: false, error: message, retry: !(err instanceof OutboundRefused) };
  }
}

/** Every attempt, delivered or not, shows on the webhook. */
export async function recordAttempt(db: Queryable, webhookId: number, attempt: Attempt): Promise<void> {
  await db.query('UPDATE outbound_webhooks SET last_status = $2, last_sent_at = now(), last_error = $3 WHERE id = $1', [webhookId, attempt.status, attempt.error]);
}
