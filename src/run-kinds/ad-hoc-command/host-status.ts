/** The worst outcome first: a host counts once, under the first of these its stats name. */
const PRECEDENCE = ['dark', 'failures', 'changed', 'ok', 'ignored', 'rescued', 'skipped'] as const;

/** How many hosts ended in each state (AWX's host_status_counts), from a run's playbook_on_stats. */
export function hostStatusCounts(stats: Record<string, Record<string, number>>): Record<string, number> {
  const hosts = new Set([...PRECEDENCE, 'processed'].flatMap((kind) => Object.keys(stats[kind] ?? {})));
  const counts: Record<string, number> = {};
  for (const host of hosts) {
    const state = PRECEDENCE.find((kind) => (stats[kind]?.[host] ?? 0) > 0);
    if (state) counts[state] = (counts[state] ?? 0) + 1;
  }
  return counts;
}
