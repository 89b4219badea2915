/** The states a host may end in, least telling first: a host counts under the last its stats name (AWX's order). */
const STATES = ['skipped', 'ok', 'changed', 'failures', 'dark'] as const;

/** How many hosts ended in each state (AWX's host_status_counts), from a run's playbook_on_stats. */
export function hostStatusCounts(stats: Record<string, Record<string, number>>): Record<string, number> {
  const stateOf = new Map<string, string>();
  for (const state of STATES) for (const host of Object.keys(stats[state] ?? {})) stateOf.set(host, state);
  const counts: Record<string, number> = {};
  for (const state of stateOf.values()) counts[state] = (counts[state] ?? 0) + 1;
  return counts;
}
