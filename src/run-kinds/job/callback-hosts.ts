/**
 * Which host of an inventory is asking for a provisioning callback, as AWX finds it: the caller's
 * address and the names it resolves back to, matched first against host names, then against
 * ansible_host / ansible_ssh_host, then against what host names resolve to.
 */
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import type { Queryable } from '../../db/database.ts';
import { parseVariables } from '../../inventory/variables.ts';

const LOOKUP_TIMEOUT_MS = 1_000;
const RESOLVE_CONCURRENCY = 2;
const RESOLVE_DEADLINE_MS = 5_000;

interface CandidateHost {
  id: number;
  name: string;
  address: string;
}

/** A DNS answer, or null when it fails or takes longer than LOOKUP_TIMEOUT_MS. */
async function withinTimeout<T>(lookup: Promise<T>): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), LOOKUP_TIMEOUT_MS);
  });
  try {
    return await Promise.race([lookup.catch(() => null), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The caller's address (an IPv4-mapped IPv6 address also as IPv4) and the names it resolves to. */
export async function remoteNames(ip: string): Promise<Set<string>> {
  const names = new Set<string>([ip]);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) names.add(mapped[1]);
  for (const address of [...names]) {
    if (!isIP(address)) continue;
    const found = await withinTimeout(dns.lookupService(address, 0));
    if (found?.hostname && !found.hostname.endsWith('.arpa')) names.add(found.hostname);
  }
  return names;
}

async function resolvesTo(name: string): Promise<string[]> {
  if (!name || isIP(name)) return [];
  const found = await withinTimeout(dns.lookup(name, { all: true }));
  return (found ?? []).map((a) => a.address);
}

/** The hosts of the inventory that match the caller; a callback needs exactly one. */
export async function matchingHosts(db: Queryable, inventoryId: number, remote: Set<string>): Promise<{ id: number; name: string }[]> {
  const rows = await db.query<{ id: number; name: string; variables: string }>('SELECT id, name, variables FROM hosts WHERE inventory_id = $1 ORDER BY id', [inventoryId]);
  const hosts: CandidateHost[] = rows.map((h) => {
    const vars = parseVariables(h.variables);
    const address = [vars.ansible_host, vars.ansible_ssh_host].find((v) => typeof v === 'string' && v) as string | undefined;
    return { id: h.id, name: h.name, address: address ?? '' };
  });
  const pick = (list: CandidateHost[]) => list.map(({ id, name }) => ({ id, name }));
  const byName = hosts.filter((h) => remote.has(h.name));
  if (byName.length === 1) return pick(byName);
  const byAddress = hosts.filter((h) => remote.has(h.name) || (h.address && remote.has(h.address)));
  if (byAddress.length === 1) return pick(byAddress);
  const matches = new Set(byAddress);
  // A few lookups at a time and within a deadline: name resolution shares libuv's small thread pool.
  const deadline = Date.now() + RESOLVE_DEADLINE_MS;
  for (let i = 0; i < hosts.length && Date.now() < deadline; i += RESOLVE_CONCURRENCY) {
    await Promise.all(hosts.slice(i, i + RESOLVE_CONCURRENCY).map(async (h) => {
      const addresses = [...(await resolvesTo(h.name)), ...(await resolvesTo(h.address))];
      if (addresses.some((a) => remote.has(a))) matches.add(h);
    }));
  }
  return pick([...matches]);
}
