/**
 * Which category and default severity a top-level fact belongs to (docs/drift.md#categories-and-severities, first match in
 * table order). A pattern with `*` is a wildcard over the whole key; one without matches a key that
 * equals or contains it (`ansible_user_` takes ansible_user_id, ansible_user_shell...).
 */
export const CATEGORIES = ['packages', 'services', 'users_groups', 'network', 'mounts', 'kernel', 'other'] as const;
export type Category = (typeof CATEGORIES)[number];
export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** low 1 .. critical 4, what severity_min compares with. */
export const severityRank = (severity: string): number => SEVERITIES.indexOf(severity as Severity) + 1;

const TABLE: { category: Category; severity: Severity; patterns: string[] }[] = [
  { category: 'packages', severity: 'medium', patterns: ['ansible_packages', 'ansible_pkg_mgr', 'package', 'pip'] },
  { category: 'services', severity: 'medium', patterns: ['ansible_services', 'ansible_service_mgr', 'systemd'] },
  { category: 'users_groups', severity: 'high', patterns: ['ansible_user_', 'user', 'group', 'passwd*'] },
  { category: 'network', severity: 'high', patterns: ['ansible_all_ipv4_addresses', 'ansible_all_ipv6_addresses', 'ansible_interfaces', 'tcp', 'port'] },
  { category: 'mounts', severity: 'medium', patterns: ['ansible_mounts', 'ansible_devices', 'disk', 'lvm'] },
  { category: 'kernel', severity: 'critical', patterns: ['ansible_kernel*', 'ansible_sysctl', 'ansible_selinux'] },
];

/** Facts that change on every gathering and say nothing about configuration: never compared. */
export const VOLATILE_FACTS = new Set(['ansible_date_time', 'ansible_uptime_seconds', 'ansible_local', 'module_setup', 'gather_subset', 'ansible_fibre_channel_wwn']);

const wildcard = (pattern: string) => new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
const MATCHERS = TABLE.map((row) => ({
  ...row,
  tests: row.patterns.map((p) => (p.includes('*') ? ((key: string) => wildcard(p).test(key)) : (key: string) => key.includes(p))),
}));

export function classifyFact(key: string): { category: Category; severity: Severity } {
  for (const row of MATCHERS) if (row.tests.some((test) => test(key))) return { category: row.category, severity: row.severity };
  return { category: 'other', severity: 'low' };
}
