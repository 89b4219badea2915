/**
 * What every secret lookup shares: the arguments (the source credential's inputs in clear, then the
 * input source's metadata, as AWX's CredentialInputSource.get_input_value merges them), requests
 * through the outbound guard, and failures that name what went wrong but never a secret.
 */
import { OutboundFailed, OutboundRefused, sendOutbound, type OutboundPolicy, type OutboundRequest, type OutboundResponse } from '../../../net/outbound.ts';

export type LookupArgs = Record<string, unknown>;

export interface LookupContext {
  policy: OutboundPolicy;
  signal?: AbortSignal;
  /** SVC_SECRET_STORE_URL: see storeEndpoint. */
  storeUrl?: string | null;
}

/** A lookup that did not answer a value; its message is safe to show (no secret in it). */
export class LookupFailed extends Error {}

export type LookupBackend = (args: LookupArgs, context: LookupContext) => Promise<string>;

/** AWX's plugins wait 30 s for a secret store. */
const TIMEOUT_MS = 30_000;

/** One request through the guard; an answer of 300 or more is AWX's "HTTP <status>" (raise_for_status). */
export async function call(context: LookupContext, request: OutboundRequest): Promise<OutboundResponse> {
  let response: OutboundResponse;
  try {
    response = await sendOutbound({ timeoutMs: TIMEOUT_MS, maxRedirects: 0, ...request, signal: context.signal }, context.policy);
  } catch (err) {
    if (err instanceof OutboundRefused || err instanceof OutboundFailed) throw new LookupFailed(err.message);
    throw err;
  }
  if (response.status >= 300) throw new LookupFailed(`HTTP ${response.status}`);
  return response;
}

export function jsonOf(response: OutboundResponse): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(response.body);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new LookupFailed('The secret store answered something other than a JSON object.');
}

/** A string argument, '' when missing. */
export const str = (args: LookupArgs, id: string): string => (typeof args[id] === 'string' ? (args[id] as string) : '');

/** Python's urljoin for the cases the plugins use: a relative path replaces the base's last segment. */
export function urlJoin(base: string, path: string): string {
  try {
    return new URL(path, base).toString();
  } catch {
    throw new LookupFailed(`Invalid URL: ${base}`);
  }
}

/** A value as an input takes it: strings as they are, anything else as JSON. */
export const asInputValue = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * A cloud secret store's fixed endpoint (Azure's sign-in authority, a DSV tenant, AWS Secrets
 * Manager), or the same path at SVC_SECRET_STORE_URL when that is set: a stand-in or a mirror, as
 * AWX's DSV url_template in debug mode.
 */
export function storeEndpoint(url: string, context: LookupContext): string {
  const override = context.storeUrl;
  if (!override) return url;
  const real = new URL(url);
  return new URL(`${real.pathname}${real.search}`, override).toString();
}
