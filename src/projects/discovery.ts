// Which files of a project checkout are playbooks and which are inventories, by AWX's rules
// (awx/main/utils/ansible.py), with limits so that a huge or hostile repository cannot stall a request.
import { lstat, open, opendir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { yamlTooDeep } from '../inventory/variables.ts';

export interface DiscoveryLimits {
  /** Directories deeper than this below the project are not entered. */
  maxDepth: number;
  /** Directory entries looked at in all; the walk stops there. */
  maxEntries: number;
  /** Bytes read from the start of one file. */
  maxFileBytes: number;
  /** Bytes read in all; the walk stops there. */
  maxTotalBytes: number;
  /** Inventory files listed at most (AWX caps the list at 50). */
  maxInventories: number;
}

export const DISCOVERY_LIMITS: DiscoveryLimits = {
  maxDepth: 16,
  maxEntries: 20_000,
  maxFileBytes: 1024 * 1024,
  maxTotalBytes: 64 * 1024 * 1024,
  maxInventories: 50,
};

export interface ProjectScan {
  playbooks: string[];
  inventories: string[];
  /** A limit stopped the walk: the lists may be incomplete. */
  truncated: boolean;
}

// A play key (hosts, include, import_playbook) on some line, as AWX looks for it.
const PLAYBOOK_LINE = /^\s*-?\s*(?:hosts|include|import_playbook):/m;
const VAULT_HEADER = '$ANSIBLE_VAULT;';
const INVENTORY_LINE = /^[a-zA-Z0-9_.=[\]]/;
const PLAYBOOK_EXTENSIONS = new Set(['.yml', '.yaml']);
const INVENTORY_NAMES = new Set(['inventory', 'hosts']);
const INVENTORY_YAML_MAX_BYTES = 256 * 1024;
const GROUP_KEYS = ['hosts', 'children', 'vars'];
// Aliases expand: a limit keeps a billion laughs out. Unknown tags (!vault, !unsafe) are no reason to warn.
const YAML_OPTIONS = { maxAliasCount: 50, uniqueKeys: false, logLevel: 'error' } as const;

/** Directories whose files are never playbooks or inventories: roles, task lists, variables, hidden ones. */
export function skipDirectory(relativeDir: string): boolean {
  return relativeDir
    .split('/')
    .some((part) => part === 'roles' || part === 'tasks' || part === 'group_vars' || part === 'host_vars' || part.startsWith('.'));
}

/**
 * Whether text (a file's beginning) reads as a playbook: vault-encrypted, or with a play key on
 * some line (AWX's rule) and not a YAML mapping (an inventory or variables file with a `hosts:`
 * key). A file that does not parse still counts, so that a playbook with a syntax error shows up
 * (and reports the error when run) instead of silently vanishing.
 */
export function looksLikePlaybook(text: string): boolean {
  if (text.startsWith(VAULT_HEADER)) return true;
  if (!PLAYBOOK_LINE.test(text)) return false;
  // Too deep to parse safely: as a file that does not parse, it still counts.
  if (yamlTooDeep(text)) return true;
  try {
    return Array.isArray(parseYaml(text, YAML_OPTIONS));
  } catch {
    return true;
  }
}

/** An extension-less file whose first ten lines all begin as inventory lines do (AWX's check; blank and comment lines fail it). */
function looksLikeIniInventory(text: string): boolean {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.slice(0, 10).every((line) => INVENTORY_LINE.test(line));
}

/** A YAML inventory: a mapping of groups (each null or holding hosts, children or vars), or an inventory plugin configuration. */
export function looksLikeYamlInventory(text: string): boolean {
  let data: unknown;
  if (yamlTooDeep(text)) return false;
  try {
    data = parseYaml(text, YAML_OPTIONS);
  } catch {
    return false;
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return false;
  const entries = Object.entries(data as Record<string, unknown>);
  if (typeof (data as Record<string, unknown>).plugin === 'string') return true;
  const isGroup = (v: unknown) => v === null || (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).every((k) => GROUP_KEYS.includes(k)));
  return entries.length > 0 && entries.every(([, v]) => isGroup(v)) && entries.some(([, v]) => v !== null && Object.keys(v as object).length > 0);
}

interface Budget {
  entries: number;
  bytes: number;
  truncated: boolean;
}

async function readHead(file: string, limits: DiscoveryLimits, budget: Budget, max = limits.maxFileBytes): Promise<string | null> {
  const size = Math.min(max, limits.maxTotalBytes - budget.bytes);
  if (size <= 0) {
    budget.truncated = true;
    return null;
  }
  const handle = await open(file, 'r').catch(() => null);
  if (!handle) return null;
  try {
    const buffer = Buffer.alloc(size);
    const { bytesRead } = await handle.read(buffer, 0, size, 0);
    budget.bytes += bytesRead;
    return buffer.subarray(0, bytesRead).toString('utf8');
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

/**
 * A regular file of the project, following a symbolic link only to a regular file inside the
 * project (never to a device, a pipe or anything outside); answers its mode, or null.
 */
async function regularFile(root: string, file: string): Promise<number | null> {
  const info = await lstat(file).catch(() => null);
  if (!info) return null;
  if (info.isFile()) return info.mode;
  if (!info.isSymbolicLink()) return null;
  const target = await realpath(file).catch(() => null);
  if (!target || !target.startsWith(root + path.sep)) return null;
  const resolved = await stat(target).catch(() => null);
  return resolved?.isFile() ? resolved.mode : null;
}

async function classify(root: string, relative: string, limits: DiscoveryLimits, budget: Budget, scan: ProjectScan): Promise<void> {
  const file = path.join(root, relative);
  const name = path.basename(relative);
  const ext = path.extname(name);
  const mode = await regularFile(root, file);
  if (mode === null) return;
  const wantsInventory = scan.inventories.length < limits.maxInventories;
  // As AWX: these names, .ini files and executables (inventory scripts) are inventories whatever they hold.
  const inventoryByName = INVENTORY_NAMES.has(name) || ext === '.ini' || (mode & 0o111) !== 0;
  if (wantsInventory && inventoryByName) scan.inventories.push(relative);
  if (PLAYBOOK_EXTENSIONS.has(ext)) {
    const text = await readHead(file, limits, budget);
    if (text === null) return;
    if (looksLikePlaybook(text)) scan.playbooks.push(relative);
    else if (wantsInventory && !inventoryByName && text.length <= INVENTORY_YAML_MAX_BYTES && looksLikeYamlInventory(text)) scan.inventories.push(relative);
    return;
  }
  if (!wantsInventory || inventoryByName || ext !== '') return;
  const text = await readHead(file, limits, budget, 4096);
  if (text !== null && looksLikeIniInventory(text)) scan.inventories.push(relative);
}

const byName = (a: string, b: string) => {
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
};

/** Walks the project once and answers its playbooks and inventory files, each sorted case-insensitively. */
export async function scanProject(projectDir: string, limits: DiscoveryLimits = DISCOVERY_LIMITS): Promise<ProjectScan> {
  const scan: ProjectScan = { playbooks: [], inventories: [], truncated: false };
  const root = await realpath(projectDir).catch(() => null);
  if (!root || !(await stat(root)).isDirectory()) return scan;
  const budget: Budget = { entries: 0, bytes: 0, truncated: false };
  const pending: { dir: string; depth: number }[] = [{ dir: '', depth: 0 }];
  walk: while (pending.length) {
    const { dir, depth } = pending.shift()!;
    const handle = await opendir(path.join(root, dir)).catch(() => null);
    if (!handle) continue;
    const entries = [];
    for await (const entry of handle) {
      if (++budget.entries > limits.maxEntries) {
        budget.truncated = true;
        break;
      }
      entries.push(entry);
    }
    entries.sort((a, b) => byName(a.name, b.name));
    for (const entry of entries) {
      // Hidden files are skipped as hidden directories are (.gitignore, .ansible-lint...).
      if (entry.name.startsWith('.')) continue;
      const relative = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (depth + 1 > limits.maxDepth) budget.truncated = true;
        else if (!skipDirectory(relative)) pending.push({ dir: relative, depth: depth + 1 });
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        await classify(root, relative, limits, budget, scan);
      }
      if (budget.truncated && budget.bytes >= limits.maxTotalBytes) break walk;
    }
    if (budget.entries > limits.maxEntries) break;
  }
  scan.truncated = budget.truncated;
  scan.playbooks.sort(byName);
  scan.inventories.sort(byName);
  return scan;
}

/** Relative paths of the project's playbooks (AWX's /projects/{id}/playbooks/), sorted. */
export async function findPlaybooks(projectDir: string, limits?: DiscoveryLimits): Promise<string[]> {
  return (await scanProject(projectDir, limits)).playbooks;
}

/** Relative paths of the project's inventory files (AWX's /projects/{id}/inventories/), sorted, at most 50. */
export async function findInventoryFiles(projectDir: string, limits?: DiscoveryLimits): Promise<string[]> {
  return (await scanProject(projectDir, limits)).inventories;
}
