/**
 * One inventory of a run over several (docs/job-templates.md, "Several inventories"), written so
 * that Ansible, which merges its inventory sources by name, keeps each inventory's groups apart:
 * a group's members are listed directly (its descendants' hosts included, no `children`, so a
 * same-named group of another inventory never pulls this one's hosts into its parents), every
 * variable of the inventory and its groups is resolved into each host's own variables as Ansible
 * would resolve them (all, then groups by depth, ansible_group_priority and name, then the host),
 * and the inventory's hosts form one more group, `inventory_<id>`.
 */
import type { Variables } from './variables.ts';

interface ScriptGroup {
  hosts?: string[];
  children?: string[];
  vars?: Variables;
}

type Script = Record<string, unknown>;

/** The group every host of the inventory is in, for plays that target one inventory (`web:&inventory_7`). */
export const inventoryGroupName = (inventoryId: number) => `inventory_${inventoryId}`;

export function separatedScript(script: Script, inventoryId: number): Script {
  const all = (script.all ?? {}) as ScriptGroup;
  const hostvars = ((script._meta as { hostvars?: Record<string, Variables> } | undefined)?.hostvars ?? {});
  const groups = new Map<string, ScriptGroup>();
  for (const name of all.children ?? []) groups.set(name, (script[name] ?? {}) as ScriptGroup);
  const parents = new Map<string, string[]>();
  for (const [name, group] of groups) for (const child of group.children ?? []) parents.set(child, [...(parents.get(child) ?? []), name]);

  const depths = new Map<string, number>();
  const depthOf = (name: string, seen: Set<string> = new Set()): number => {
    if (depths.has(name)) return depths.get(name)!;
    if (seen.has(name)) return 1; // a loop Ansible would refuse; never written by Drover
    seen.add(name);
    const depth = 1 + Math.max(0, ...(parents.get(name) ?? []).map((parent) => depthOf(parent, seen)));
    depths.set(name, depth);
    return depth;
  };
  const ancestorsOf = (name: string, into: Set<string>) => {
    if (into.has(name)) return;
    into.add(name);
    for (const parent of parents.get(name) ?? []) ancestorsOf(parent, into);
  };

  const hosts = [...new Set([...Object.keys(hostvars), ...(all.hosts ?? []), ...[...groups.values()].flatMap((g) => g.hosts ?? [])])];
  const groupsOfHost = new Map<string, Set<string>>(hosts.map((host) => [host, new Set<string>()]));
  for (const [name, group] of groups) for (const host of group.hosts ?? []) ancestorsOf(name, groupsOfHost.get(host)!);

  const priority = (name: string) => Number(groups.get(name)?.vars?.ansible_group_priority ?? 1);
  const order = (a: string, b: string) => depthOf(a) - depthOf(b) || priority(a) - priority(b) || (a < b ? -1 : a > b ? 1 : 0);

  const out: Script = {};
  const members = new Map<string, string[]>([...groups.keys()].map((name) => [name, []]));
  const resolved: Record<string, Variables> = {};
  for (const host of hosts) {
    const own = [...groupsOfHost.get(host)!].sort(order);
    for (const name of own) members.get(name)!.push(host);
    resolved[host] = Object.assign({}, all.vars ?? {}, ...own.map((name) => groups.get(name)?.vars ?? {}), hostvars[host] ?? {});
  }
  const inventoryGroup = inventoryGroupName(inventoryId);
  out.all = { children: [...groups.keys(), inventoryGroup] };
  for (const [name, list] of members) if (list.length) out[name] = { hosts: list };
  out[inventoryGroup] = { hosts };
  out._meta = { hostvars: resolved };
  return out;
}
