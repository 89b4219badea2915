import { isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';

const LOOPBACK_V4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** 127.0.0.0/8 and ::1 (also as an IPv4-mapped IPv6 address). */
export function isLoopbackAddress(address: string): boolean {
  const plain = address.replace(/^::ffff:/i, '');
  if (isIP(plain) === 4) return LOOPBACK_V4.test(plain);
  return plain === '::1' || plain === '0:0:0:0:0:0:0:1';
}

/** The names browsers count as loopback ("potentially trustworthy", W3C Secure Contexts): localhost, *.localhost and loopback addresses. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  return host === 'localhost' || host.endsWith('.localhost') || isLoopbackAddress(host);
}

/**
 * A browser on this machine using a loopback address: the client is a loopback address (after the
 * trusted proxies' X-Forwarded-For), the page's host is a loopback name, and the request carries
 * Fetch Metadata (Sec-Fetch-Mode), which browsers send only to the secure contexts where they keep
 * Secure cookies. A proxy forwarding a remote client, a remote client naming localhost in its Host
 * header, and a script (the awx CLI, curl: their cookie jars send Secure cookies over HTTPS only)
 * are none of these.
 */
export function isLoopbackBrowser(request: FastifyRequest): boolean {
  return isLoopbackAddress(request.ip) && isLoopbackHost(request.hostname) && typeof request.headers['sec-fetch-mode'] === 'string';
}
