/**
 * Who is calling the assistant, as the main service says: the caller's Authorization and Cookie
 * headers are sent to its GET /api/v2/me/. A positive answer is kept briefly, keyed by a hash of
 * those headers (the credentials themselves are neither kept nor logged); a refusal is never kept,
 * so the main service's throttling sees every wrong guess.
 */
import { createHash } from 'node:crypto';

export interface Caller {
  id: number;
  username: string;
  isSuperuser: boolean;
}

export interface CallerCredentials {
  authorization?: string;
  cookie?: string;
  /** The caller's address, passed on as X-Forwarded-For for the main service's throttling and audit. */
  address?: string;
}

/** The answer the main service gave: a caller, or the status and message of its refusal. */
export type CallerCheck = { caller: Caller } | { refused: number; detail: string };

/** How long a positive answer is kept. */
export const CALLER_TTL_MS = 10_000;
const MAX_KEPT = 1000;
const CHECK_TIMEOUT_MS = 10_000;

/** The caller's credentials as headers of a request to the main service. */
export function credentialHeaders(c: CallerCredentials): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (c.authorization) headers.authorization = c.authorization;
  if (c.cookie) headers.cookie = c.cookie;
  if (c.address) headers['x-forwarded-for'] = c.address;
  return headers;
}

const keyOf = (c: CallerCredentials) => createHash('sha256').update(`${c.authorization ?? ''}\0${c.cookie ?? ''}`).digest('hex');

export class CallerCheckFailed extends Error {}

export class MainServiceCallers {
  private readonly kept = new Map<string, { caller: Caller; until: number }>();

  constructor(private readonly mainUrl: string) {}

  /** Throws CallerCheckFailed when the main service cannot be asked (down, or an answer it should not give). */
  async check(credentials: CallerCredentials): Promise<CallerCheck> {
    const key = keyOf(credentials);
    const hit = this.kept.get(key);
    if (hit && hit.until > Date.now()) return { caller: hit.caller };
    this.kept.delete(key);
    let res: Response;
    try {
      // The caller's credentials go to the main service only: a redirect is an answer, not followed.
      res = await fetch(`${this.mainUrl}/api/v2/me/`, { headers: credentialHeaders(credentials), redirect: 'manual', signal: AbortSignal.timeout(CHECK_TIMEOUT_MS) });
    } catch {
      throw new CallerCheckFailed('The Drover service could not be reached to check the credentials.');
    }
    const body = (await res.json().catch(() => null)) as { detail?: unknown; results?: Array<Record<string, unknown>> } | null;
    // 400: credentials the main service cannot read (a NUL in them); 429: an address throttled for its failures.
    if ([400, 401, 403, 429].includes(res.status)) {
      const detail = typeof body?.detail === 'string' && body.detail.length <= 200 ? body.detail : 'The Drover service did not accept these credentials.';
      return { refused: res.status === 403 ? 401 : res.status, detail };
    }
    const user = res.ok ? body?.results?.[0] : undefined;
    if (!user || typeof user.id !== 'number' || typeof user.username !== 'string') {
      throw new CallerCheckFailed(`The Drover service answered HTTP ${res.status} to the credentials check.`);
    }
    // /me/ answers a session that has not passed its second factor, to show it the step; nothing else does.
    if (user.second_factor_pending === true) return { refused: 401, detail: 'Second factor required.' };
    const caller: Caller = { id: user.id, username: user.username, isSuperuser: user.is_superuser === true };
    if (this.kept.size >= MAX_KEPT) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(key, { caller, until: Date.now() + CALLER_TTL_MS });
    return { caller };
  }
}
