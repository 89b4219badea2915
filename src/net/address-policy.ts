/**
 * Which addresses a request to a user-supplied URL may reach: public addresses, plus the host
 * names, addresses and networks of the OUTBOUND_URL_ALLOWLIST setting. Loopback, private,
 * link-local (cloud metadata services live there), shared (CGNAT), multicast and reserved addresses
 * are refused otherwise.
 */
import { BlockList, isIP } from 'node:net';

export interface OutboundPolicy {
  /** Host names (`*.` for every subdomain), addresses and CIDR networks allowed although private. */
  allowed: readonly string[];
  /**
   * Every address may be reached: for peers an administrator configured in settings (the policy
   * engine sidecar on localhost), never for URLs users supply.
   */
  anyAddress?: boolean;
}

/** The policy for an operator-configured peer: any address, still http(s) only, bounded in time and size. */
export const OPERATOR_CONFIGURED: OutboundPolicy = { allowed: [], anyAddress: true };

/** The policy of the settings in force. */
export const outboundPolicy = (settings: { get(key: 'OUTBOUND_URL_ALLOWLIST'): string[] }): OutboundPolicy => ({
  allowed: settings.get('OUTBOUND_URL_ALLOWLIST'),
});

const REFUSED = new BlockList();
for (const [network, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) REFUSED.addSubnet(network, bits, 'ipv4');
for (const [network, bits] of [
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['100::', 64], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8],
] as const) REFUSED.addSubnet(network, bits, 'ipv6');

/** An IPv4 address written as IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address it is. */
function plainAddress(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1], family: 'ipv4' };
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hex) {
    const [high, low] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
    return { address: [high >> 8, high & 255, low >> 8, low & 255].join('.'), family: 'ipv4' };
  }
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

function hostAllowed(hostname: string, policy: OutboundPolicy): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return policy.allowed.some((entry) => {
    const e = entry.toLowerCase().replace(/\.$/, '');
    if (e.startsWith('*.')) return host.endsWith(e.slice(1));
    return e === host;
  });
}

function addressAllowedByList(address: string, family: 'ipv4' | 'ipv6', policy: OutboundPolicy): boolean {
  const list = new BlockList();
  for (const entry of policy.allowed) {
    const [network, bits] = entry.split('/');
    const version = isIP(network);
    if (!version) continue;
    const type = version === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(network, type);
    else list.addSubnet(network, Number(bits), type);
  }
  return list.check(address, family);
}

/** Null when `hostname`, resolved to `address`, may be reached; otherwise why not. */
export function refusalOf(hostname: string, address: string, policy: OutboundPolicy): string | null {
  if (policy.anyAddress) return null;
  const plain = plainAddress(address);
  if (!REFUSED.check(plain.address, plain.family)) return null;
  if (hostAllowed(hostname, policy) || addressAllowedByList(plain.address, plain.family, policy)) return null;
  return `${hostname === address ? address : `${hostname} (${address})`} is a private, loopback, link-local or reserved address; add it to OUTBOUND_URL_ALLOWLIST to allow it`;
}
