/**
 * Requests to URLs users supply (notification webhooks, commit statuses, outbound webhooks, dynamic
 * survey sources): only http and https, every connection's address checked after DNS resolution
 * (so a name cannot point the service at itself or a metadata service), redirects followed by hand
 * and checked again, a deadline for the whole exchange and a cap on the answer's size. A redirect
 * to another origin carries none of the caller's credentials or own headers (as curl and browsers).
 */
import http from 'node:http';
import https from 'node:https';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { refusalOf, type OutboundPolicy } from './address-policy.ts';

export { OPERATOR_CONFIGURED, outboundPolicy, type OutboundPolicy } from './address-policy.ts';

/** The guard refused the URL or the address it leads to. */
export class OutboundRefused extends Error {}
/** The request was allowed but did not get an answer: connection error, timeout, answer too large. */
export class OutboundFailed extends Error {}

export interface OutboundRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** For the whole exchange, redirects included (default 10 s). */
  timeoutMs?: number;
  /** Largest answer body read (default 1 MiB). */
  maxResponseBytes?: number;
  /** False accepts any TLS certificate (a user's explicit choice, as AWX's disable_ssl_verification). */
  verifyTls?: boolean;
  /** Redirects followed (default 5; 0 answers the redirect itself). */
  maxRedirects?: number;
  /** Keep the answer as bytes (`bytes`), leaving `body` empty: for archives and other binary answers. */
  binary?: boolean;
  /** Aborts the exchange early (a run's cancel), besides the deadline. */
  signal?: AbortSignal;
  /** For https: a CA to trust (PEM), and a client certificate with its key (secret stores' TLS auth). */
  tls?: { ca?: string; cert?: string; key?: string };
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The answer's bytes, when the request asked for `binary`. */
  bytes?: Buffer;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BYTES = 1024 * 1024;

/** An address of `hostname` the policy lets the service connect to (for SMTP, IRC and other non-HTTP peers). */
export async function resolveAllowedHost(hostname: string, policy: OutboundPolicy): Promise<string> {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch (err) {
      throw new OutboundFailed(`Could not resolve ${host}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  // Every address must pass: a name that also resolves to a private address is refused.
  for (const address of addresses) {
    const refusal = refusalOf(host, address, policy);
    if (refusal) throw new OutboundRefused(`Refused: ${refusal}.`);
  }
  if (!addresses.length) throw new OutboundFailed(`Could not resolve ${host}.`);
  return addresses[0];
}

/**
 * The only headers that follow a redirect to another origin (scheme, host or port differ): they
 * describe the request and carry nothing of the caller's. Authorization, Cookie,
 * Proxy-Authorization and every header of the caller's own (API keys, tokens, X-...) stay behind.
 */
const CROSS_ORIGIN_HEADERS = new Set(['accept', 'accept-language', 'content-type', 'user-agent']);
/** Headers that describe a body, dropped with it when a redirect turns the request into a GET. */
const BODY_HEADERS = new Set(['content-type', 'content-encoding', 'content-language', 'content-location']);

const keepOnly = (headers: Record<string, string>, keep: (name: string) => boolean) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => keep(name.toLowerCase())));

/** Sends one request through the guard and answers the final response (after redirects). */
export async function sendOutbound(request: OutboundRequest, policy: OutboundPolicy): Promise<OutboundResponse> {
  const timeout = AbortSignal.timeout(request.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const deadline = request.signal ? AbortSignal.any([timeout, request.signal]) : timeout;
  let url = parseUrl(request.url);
  let method = (request.method ?? 'GET').toUpperCase();
  let body = request.body;
  let headers = request.headers ?? {};
  const maxRedirects = request.maxRedirects ?? 5;
  for (let hop = 0; ; hop++) {
    const response = await exchange(url, method, headers, request, body, policy, deadline);
    const location = response.headers.location;
    if (![301, 302, 303, 307, 308].includes(response.status) || !location || hop >= maxRedirects) return response;
    const next = parseUrl(new URL(location, url).toString());
    // Once dropped they stay dropped, even if a later redirect comes back to the first origin.
    if (next.origin !== url.origin) headers = keepOnly(headers, (name) => CROSS_ORIGIN_HEADERS.has(name));
    url = next;
    if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
      headers = keepOnly(headers, (name) => !BODY_HEADERS.has(name));
    }
  }
}

function parseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRefused(`Refused: "${raw}" is not a valid URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundRefused(`Refused: only http and https URLs are allowed, not ${url.protocol.replace(/:$/, '')}.`);
  return url;
}

/** A DNS lookup for the request's socket that refuses addresses the policy does not allow. */
function guardedLookup(policy: OutboundPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolveAllowedHost(hostname, policy).then(
      (address) => {
        const family = isIP(address);
        if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [{ address, family }]);
        else callback(null, address, family);
      },
      (err: Error) => callback(err as NodeJS.ErrnoException, '', 0),
    );
  };
}

const tlsMaterial = (tls: OutboundRequest['tls']) =>
  Object.fromEntries(Object.entries(tls ?? {}).filter(([, value]) => typeof value === 'string' && value !== ''));

async function exchange(
  url: URL, method: string, headers: Record<string, string>, request: OutboundRequest, body: string | Buffer | undefined, policy: OutboundPolicy, signal: AbortSignal,
): Promise<OutboundResponse> {
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  // Node connects to an address literal without a lookup: it is checked here instead.
  if (isIP(hostname)) await resolveAllowedHost(hostname, policy);
  const client = url.protocol === 'https:' ? https : http;
  const limit = request.maxResponseBytes ?? DEFAULT_MAX_BYTES;
  return new Promise<OutboundResponse>((resolve, reject) => {
    const fail = (err: unknown) => {
      if (err instanceof OutboundRefused || err instanceof OutboundFailed) return reject(err);
      if (request.signal?.aborted) return reject(new OutboundFailed(`The request to ${url.host} was stopped.`));
      if (signal.aborted) return reject(new OutboundFailed(`No answer from ${url.host} within ${request.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms.`));
      const e = err as NodeJS.ErrnoException;
      reject(new OutboundFailed(`Request to ${url.host} failed: ${e.code ?? ''}${e.code ? ' ' : ''}${e.message}`.trim()));
    };
    const req = client.request(url, {
      method,
      headers: { ...(body !== undefined && { 'content-length': String(Buffer.byteLength(body)) }), ...headers },
      lookup: guardedLookup(policy),
      signal,
      agent: false,
      ...(url.protocol === 'https:' && { rejectUnauthorized: request.verifyTls !== false, ...tlsMaterial(request.tls) }),
    }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) {
          fail(new OutboundFailed(`The answer from ${url.host} is larger than ${limit} bytes.`));
          req.destroy();
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', fail);
      res.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
        const bytes = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers, ...(request.binary ? { body: '', bytes } : { body: bytes.toString('utf8') }) });
      });
    });
    req.on('error', (err) => fail(err instanceof Error && 'cause' in err && err.cause instanceof OutboundRefused ? err.cause : err));
    req.end(body);
  });
}
