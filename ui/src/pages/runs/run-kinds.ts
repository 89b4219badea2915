import type { FieldOf, ResourceObject } from '../../api/types';

/** The resources whose objects are runs: every kind, and the unified list of them all. */
export type RunKey = 'unified_jobs' | 'jobs' | 'ad_hoc_commands' | 'project_updates' | 'inventory_updates' | 'workflow_jobs' | 'system_jobs';
/** A run of any kind, as its own resource serializes it. */
export type Run = ResourceObject<RunKey>;

/** The run kinds whose output is a stream of events (all but workflow jobs). */
export const EVENT_GROUPS: Record<string, string> = {
  job: 'job_events',
  ad_hoc_command: 'ad_hoc_command_events',
  project_update: 'project_update_events',
  inventory_update: 'inventory_update_events',
  system_job: 'system_job_events',
};

export type RunStatus = FieldOf<'unified_jobs', 'status'>;

export const FINAL_STATUSES: ReadonlySet<unknown> = new Set<RunStatus>(['successful', 'failed', 'error', 'canceled']);
export const isActive = (run: Run) => !FINAL_STATUSES.has(run.status);

/** Where a run's events are listed: job_events/ for jobs, events/ for the other kinds. */
export const eventsUrlOf = (run: Run): string => run.related.job_events ?? run.related.events ?? `${run.url}events/`;

/** Playbook runs carry plays and tasks whose output folds (AWX serves their tree for jobs). */
export const hasEventTree = (run: Run) => run.type === 'job';
