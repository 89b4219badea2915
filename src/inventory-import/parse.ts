/**
 * Reads the JSON that `ansible-inventory --list --export` prints into hosts, groups and their
 * variables, as AWX's inventory import sees them: `all` and `ungrouped` are not groups (the
 * variables of `all` belong to the inventory), and every host of `_meta.hostvars` is a host.
 */
import { hostFilterMatcher } from './host-filter-regex.ts';

export type Variables = Record<string, unknown>;

export interface ParsedGroup {
  vars: Variables;
  hosts: string[];
  children: string[];
}

export interface ParsedInventory {
  /** Variables of the `all` group: they go to the inventory itself. */
  vars: Variables;
  hosts: Map<string, Variables>;
  groups: Map<string, ParsedGroup>;
}

export interface ParseOptions {
  /** Only hosts whose name matches this regular expression (from its start) are imported. */
  hostFilter?: string;
  /** Drop groups left without hosts, children or variables (AWX does for cloud sources). */
  excludeEmptyGroups?: boolean;
}

export class InventoryFormatError extends Error {}

const ROOT_GROUPS = new Set(['all', 'ungrouped']);

const isMapping = (v: unknown): v is Variables => typeof v === 'object' && v !== null && !Array.isArray(v);

function names(value: unknown, what: string, owner: string): string[] {
  if (value === undefined || value === null) return [];
  // Some scripts answer hosts as a mapping of name to variables.
  const list = isMapping(value) ? Object.keys(value) : value;
  if (!Array.isArray(list)) throw new InventoryFormatError(`The ${what} of "${owner}" must be a list.`);
  for (const name of list) {
    if (typeof name !== 'string' || name === '') throw new InventoryFormatError(`"${owner}" lists a ${what.replace(/s$/, '')} name that is not a string.`);
  }
  return list as string[];
}

export function parseInventory(input: string | unknown, options: ParseOptions = {}): ParsedInventory {
  let data = input;
  if (typeof input === 'string') {
    try {
      data = JSON.parse(input);
    } catch (err) {
      throw new InventoryFormatError(`The inventory output is not JSON: ${(err as Error).message}`);
    }
  }
  if (!isMapping(data)) throw new InventoryFormatError('The inventory output must be a JSON object.');
  const meta = data._meta;
  const hostvars = isMapping(meta) && isMapping(meta.hostvars) ? meta.hostvars : {};
  const inventory: ParsedInventory = { vars: {}, hosts: new Map(), groups: new Map() };
  const addHost = (name: string) => {
    if (inventory.hosts.has(name)) return;
    const vars = hostvars[name];
    inventory.hosts.set(name, isMapping(vars) ? vars : {});
  };
  const group = (name: string): ParsedGroup => {
    let found = inventory.groups.get(name);
    if (!found) inventory.groups.set(name, (found = { vars: {}, hosts: [], children: [] }));
    return found;
  };

  for (const [name, value] of Object.entries(data)) {
    if (name === '_meta') continue;
    // The oldest script format: a group is just its list of hosts.
    const body: Variables = Array.isArray(value) ? { hosts: value } : isMapping(value) ? value : {};
    if (value !== null && !Array.isArray(value) && !isMapping(value)) throw new InventoryFormatError(`Group "${name}" must be an object.`);
    if (body.vars !== undefined && body.vars !== null && !isMapping(body.vars)) throw new InventoryFormatError(`The vars of "${name}" must be a mapping.`);
    const hosts = names(body.hosts, 'hosts', name);
    const children = names(body.children, 'children', name).filter((child) => !ROOT_GROUPS.has(child) && child !== name);
    hosts.forEach(addHost);
    if (ROOT_GROUPS.has(name)) {
      if (name === 'all' && isMapping(body.vars)) inventory.vars = body.vars;
      children.forEach(group);
      continue;
    }
    const target = group(name);
    if (isMapping(body.vars)) target.vars = body.vars;
    target.hosts.push(...hosts);
    target.children.push(...children);
    children.forEach(group);
  }
  for (const name of Object.keys(hostvars)) addHost(name);
  for (const g of inventory.groups.values()) {
    g.hosts = [...new Set(g.hosts)];
    g.children = [...new Set(g.children)];
  }
  if (options.hostFilter) filterHosts(inventory, options.hostFilter);
  if (options.excludeEmptyGroups) dropEmptyGroups(inventory);
  return inventory;
}

function filterHosts(inventory: ParsedInventory, pattern: string): void {
  let matcher: RegExp;
  try {
    matcher = hostFilterMatcher(pattern);
  } catch (err) {
    throw new InventoryFormatError(`Invalid host_filter: ${(err as Error).message}`);
  }
  for (const name of inventory.hosts.keys()) if (!matcher.test(name)) inventory.hosts.delete(name);
  for (const g of inventory.groups.values()) g.hosts = g.hosts.filter((h) => inventory.hosts.has(h));
}

function dropEmptyGroups(inventory: ParsedInventory): void {
  for (let changed = true; changed; ) {
    changed = false;
    for (const [name, g] of inventory.groups) {
      if (g.hosts.length || g.children.length || Object.keys(g.vars).length) continue;
      inventory.groups.delete(name);
      changed = true;
    }
    if (changed) for (const g of inventory.groups.values()) g.children = g.children.filter((c) => inventory.groups.has(c));
  }
}

/**
 * The value of a host variable named by `spec`: a dotted path into nested mappings ("guest.state"),
 * or several such paths separated by commas, the first one present winning. Undefined when absent.
 */
export function lookupVariable(vars: Variables, spec: string): unknown {
  for (const path of spec.split(',').map((p) => p.trim()).filter(Boolean)) {
    let value: unknown = vars;
    let found = true;
    for (const key of path.split('.')) {
      if (!isMapping(value) || !(key in value)) {
        found = false;
        break;
      }
      value = value[key];
    }
    if (found) return value;
  }
  return undefined;
}

/** Python's truth value, as AWX applies it to an enabled variable without enabled_value. */
function truthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (isMapping(value)) return Object.keys(value).length > 0;
  return Boolean(value);
}

const pythonText = (value: unknown): string => (value === true ? 'True' : value === false ? 'False' : value === null ? 'None' : String(value));

/**
 * Whether the host is enabled according to its variables: null when the enabled variable is not
 * set (the host keeps its state). With an enabled_value, enabled means equal ignoring case.
 */
export function hostEnabled(vars: Variables, enabledVar: string, enabledValue: string): boolean | null {
  if (!enabledVar) return null;
  const value = lookupVariable(vars, enabledVar);
  if (value === undefined) return null;
  if (enabledValue !== '') return pythonText(value).toLowerCase() === enabledValue.toLowerCase();
  return truthy(value);
}

/** The host's instance id from its variables ('' when none). */
export function hostInstanceId(vars: Variables, instanceIdVar: string): string {
  if (!instanceIdVar) return '';
  const value = lookupVariable(vars, instanceIdVar);
  return value === undefined || value === null || isMapping(value) || Array.isArray(value) ? '' : pythonText(value);
}
