import type { ParsedInventory } from './parse.ts';

export class LimitError extends Error {}

/** A glob of Ansible host patterns (*, ?, [abc]) as a regular expression matching whole names. */
function globPattern(term: string): RegExp {
  const source = term.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${source}$`);
}

/** Hosts of a group and of its descendants. */
function hostsUnder(inventory: ParsedInventory, group: string, into: Set<string>, seen = new Set<string>()): void {
  if (seen.has(group)) return;
  seen.add(group);
  const g = inventory.groups.get(group);
  if (!g) return;
  g.hosts.forEach((h) => into.add(h));
  g.children.forEach((c) => hostsUnder(inventory, c, into, seen));
}

/** The hosts one term names: `all`, a group, a host, a glob over both, or `~regex`. */
function hostsOf(inventory: ParsedInventory, term: string): Set<string> {
  const out = new Set<string>();
  if (term === 'all' || term === '*') return new Set(inventory.hosts.keys());
  let matcher: (name: string) => boolean;
  if (term.startsWith('~')) {
    let re: RegExp;
    try {
      re = new RegExp(term.slice(1));
    } catch (err) {
      throw new LimitError(`Invalid limit pattern "${term}": ${(err as Error).message}`);
    }
    matcher = (name) => re.test(name);
  } else if (/[*?[]/.test(term)) {
    const re = globPattern(term);
    matcher = (name) => re.test(name);
  } else matcher = (name) => name === term;
  for (const name of inventory.groups.keys()) if (matcher(name)) hostsUnder(inventory, name, out);
  for (const name of inventory.hosts.keys()) if (matcher(name)) out.add(name);
  if (term === 'ungrouped') {
    const grouped = new Set([...inventory.groups.values()].flatMap((g) => g.hosts));
    for (const name of inventory.hosts.keys()) if (!grouped.has(name)) out.add(name);
  }
  return out;
}

/**
 * Keeps only the hosts an Ansible limit selects (`web:&prod:!web3`, `db*,~^app\d+`): terms
 * separated by `:` or `,`; plain terms add hosts, `&` terms intersect, `!` terms exclude, in
 * Ansible's order. Groups stay, holding only the selected hosts.
 */
export function applyLimit(inventory: ParsedInventory, limit: string): void {
  const terms = limit.split(/[,:]/).map((t) => t.trim()).filter(Boolean);
  if (!terms.length) return;
  const plain = terms.filter((t) => !t.startsWith('&') && !t.startsWith('!'));
  const selected = new Set<string>();
  for (const term of plain.length ? plain : ['all']) hostsOf(inventory, term).forEach((h) => selected.add(h));
  for (const term of terms.filter((t) => t.startsWith('&'))) {
    const keep = hostsOf(inventory, term.slice(1));
    for (const h of selected) if (!keep.has(h)) selected.delete(h);
  }
  for (const term of terms.filter((t) => t.startsWith('!'))) hostsOf(inventory, term.slice(1)).forEach((h) => selected.delete(h));
  for (const name of inventory.hosts.keys()) if (!selected.has(name)) inventory.hosts.delete(name);
  for (const g of inventory.groups.values()) g.hosts = g.hosts.filter((h) => selected.has(h));
}
