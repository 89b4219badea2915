import type { FieldOf } from '../../api/types';

/** The kinds of run the API lists in unified_jobs (its `type` values). */
export type RunType = FieldOf<'unified_jobs', 'type'>;

/** What the console calls each kind of run, as AWX's console does. */
export const RUN_TYPE_LABELS: Record<RunType, string> = {
  job: 'Playbook run',
  ad_hoc_command: 'Command',
  project_update: 'Source control update',
  inventory_update: 'Inventory sync',
  workflow_job: 'Workflow',
  system_job: 'Management job',
  workflow_approval: 'Workflow approval',
};

/** The friendly name of a run's type; a type the console does not know reads as the API writes it. */
export const runTypeLabel = (type: string): string => (RUN_TYPE_LABELS as Record<string, string>)[type] ?? type;
