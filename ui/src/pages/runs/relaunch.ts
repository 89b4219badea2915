import { http } from '../../api/client';
import type { ApiBody } from '../../api/types';
import type { Run } from './run-kinds';

export type RelaunchHosts = NonNullable<ApiBody<'/api/v2/jobs/{id}/relaunch/', 'post'>['hosts']>;

/**
 * Where a run is started again: its own relaunch/ (jobs, ad hoc commands, workflow jobs), or the
 * update/ of the project or inventory source it synced. Undefined for kinds AWX does not relaunch.
 */
export function relaunchUrl(run: Run): string | undefined {
  if (run.type === 'project_update') return run.project ? `/api/v2/projects/${run.project}/update/` : undefined;
  if (run.type === 'inventory_update') return run.inventory_source ? `/api/v2/inventory_sources/${run.inventory_source}/update/` : undefined;
  return run.related.relaunch;
}

interface RelaunchConfig {
  passwords_needed_to_start?: string[];
  can_update?: boolean;
}

/** Asks what a relaunch needs first (as AWX's console does): the passwords to prompt for, if any. */
export async function relaunchNeeds(run: Run): Promise<string[]> {
  const config = await http.get<RelaunchConfig>(relaunchUrl(run)!);
  if (config.can_update === false) throw new Error('This source cannot be updated now.');
  return config.passwords_needed_to_start ?? [];
}

/** Starts the relaunch and answers the new run (its id and type). */
export function relaunch(run: Run, hosts: RelaunchHosts, passwords: Record<string, string> = {}): Promise<Run> {
  const url = relaunchUrl(run)!;
  if (run.type === 'job') return http.post<Run>(url, { hosts, ...(Object.keys(passwords).length && { credential_passwords: passwords }) });
  // Ad hoc commands take their passwords as fields of the body.
  return http.post<Run>(url, passwords);
}

/** Hosts of a finished job that failed or were unreachable. */
export function failedHostCount(run: Run): number {
  const counts = (run.host_status_counts ?? {}) as Record<string, number>;
  return (counts.failures ?? 0) + (counts.dark ?? 0);
}
