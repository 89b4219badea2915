/**
 * Requests to an OpenID Connect or OAuth2 provider the administrator configured: through the
 * outbound guard (http(s) only, a deadline for the whole exchange, a cap on the answer's size, no
 * redirects followed), as a Fetch API function for openid-client and for the social providers.
 */
import { OPERATOR_CONFIGURED, OutboundFailed, OutboundRefused, sendOutbound } from '../../net/outbound.ts';

export interface ProviderFetchOptions {
  timeoutMs: number;
  verifyTls: boolean;
}

/** The provider could not be reached or did not answer in time. */
export class ProviderUnreachable extends Error {}

type FetchInit = { method?: string; headers?: Record<string, string> | Headers; body?: unknown };

function bodyText(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return Buffer.from(body as ArrayBuffer).toString('utf8');
  throw new TypeError('unsupported request body');
}

export function providerFetch(options: ProviderFetchOptions) {
  return async (url: string, init: FetchInit = {}): Promise<Response> => {
    const headers = init.headers instanceof Headers ? Object.fromEntries(init.headers.entries()) : { ...init.headers };
    try {
      const answer = await sendOutbound(
        { url, method: init.method ?? 'GET', headers, body: bodyText(init.body), timeoutMs: options.timeoutMs, verifyTls: options.verifyTls, maxRedirects: 0 },
        OPERATOR_CONFIGURED,
      );
      const nullBody = answer.status === 204 || answer.status === 304;
      return new Response(nullBody ? null : answer.body, { status: answer.status, headers: answer.headers });
    } catch (err) {
      if (err instanceof OutboundFailed || err instanceof OutboundRefused) throw new ProviderUnreachable(err.message);
      throw err;
    }
  };
}
