import { boolean, choice, datetime, float, integer, ref, text, type Field } from '../api/fields.ts';
import type { SerializedObject } from '../api/resource.ts';

export const RUN_STATUSES = ['new', 'pending', 'waiting', 'running', 'successful', 'failed', 'error', 'canceled'];
/** Ansible's verbosity levels as AWX names them (OPTIONS shows verbosity as a choice). */
export const VERBOSITY_CHOICES = [
  [0, '0 (Normal)'], [1, '1 (Verbose)'], [2, '2 (More Verbose)'], [3, '3 (Debug)'], [4, '4 (Connection Debug)'], [5, '5 (WinRM Debug)'],
] as const;

/** An inventory update's verbosity levels (AWX's INVENTORY_UPDATE_VERBOSITY_CHOICES). */
export const INVENTORY_VERBOSITY_CHOICES = [[0, '0 (WARNING)'], [1, '1 (INFO)'], [2, '2 (DEBUG)']] as const;

export const LAUNCH_TYPES = ['manual', 'relaunch', 'callback', 'scheduled', 'dependency', 'workflow', 'webhook', 'sync', 'scm'];

/** Fields every run kind shows (AWX's UnifiedJob), all read-only. */
export function runFields(): Record<string, Field> {
  return {
    name: text({ readOnly: true }),
    description: text({ readOnly: true }),
    launch_type: choice(LAUNCH_TYPES, { readOnly: true }),
    status: choice(RUN_STATUSES, { readOnly: true }),
    failed: boolean({ readOnly: true }),
    started: datetime({ readOnly: true }),
    finished: datetime({ readOnly: true }),
    elapsed: { ...float({ readOnly: true }), serialize: (v: unknown) => (v === null || v === undefined ? null : Number(v)) },
    job_explanation: text({ readOnly: true }),
    result_traceback: text({ readOnly: true }),
    execution_node: text({ readOnly: true }),
    controller_node: text({ readOnly: true }),
    event_processing_finished: boolean({ readOnly: true }),
    organization: ref('organization', { readOnly: true }),
    execution_environment: ref('execution_environment', { readOnly: true }),
    instance_group: ref('instance_group', { readOnly: true }),
    timeout: integer({ readOnly: true }),
    verbosity: integer({ readOnly: true, choices: VERBOSITY_CHOICES }),
  };
}

/** What every run kind links to without showing it as a field (AWX's UnifiedJob.schedule: related, summary_fields, filters). */
export function runLinks(): Record<string, Field> {
  return { schedule: ref('schedule', { readOnly: true }) };
}

/** The schedule's summary as AWX's: id, name, description and next_run, each left out when null (a schedule that will not run again). */
export function showSchedule(out: SerializedObject): void {
  const schedule = out.summary_fields.schedule as Record<string, unknown> | undefined;
  if (schedule && schedule.next_run === null) delete schedule.next_run;
}
