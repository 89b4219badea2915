/**
 * What AWX shows of an output event beside its stored fields: its display label and its level in
 * the play / task / host tree (AWX's JobEvent.EVENT_TYPES and AdHocCommandEvent.EVENT_TYPES).
 */

/** Playbook events (jobs, project updates): [level, label]. */
const PLAYBOOK_EVENTS: Record<string, [number, string]> = {
  runner_on_failed: [3, 'Host Failed'],
  runner_on_start: [3, 'Host Started'],
  runner_on_ok: [3, 'Host OK'],
  runner_on_error: [3, 'Host Failure'],
  runner_on_skipped: [3, 'Host Skipped'],
  runner_on_unreachable: [3, 'Host Unreachable'],
  runner_on_no_hosts: [3, 'No Hosts Remaining'],
  runner_on_async_poll: [3, 'Host Polling'],
  runner_on_async_ok: [3, 'Host Async OK'],
  runner_on_async_failed: [3, 'Host Async Failure'],
  runner_item_on_ok: [3, 'Item OK'],
  runner_item_on_failed: [3, 'Item Failed'],
  runner_item_on_skipped: [3, 'Item Skipped'],
  runner_retry: [3, 'Host Retry'],
  runner_on_file_diff: [3, 'File Difference'],
  playbook_on_start: [0, 'Playbook Started'],
  playbook_on_notify: [2, 'Running Handlers'],
  playbook_on_include: [2, 'Including File'],
  playbook_on_no_hosts_matched: [2, 'No Hosts Matched'],
  playbook_on_no_hosts_remaining: [2, 'No Hosts Remaining'],
  playbook_on_task_start: [2, 'Task Started'],
  playbook_on_vars_prompt: [1, 'Variables Prompted'],
  playbook_on_setup: [2, 'Gathering Facts'],
  playbook_on_import_for_host: [2, 'internal: on Import for Host'],
  playbook_on_not_import_for_host: [2, 'internal: on Not Import for Host'],
  playbook_on_play_start: [1, 'Play Started'],
  playbook_on_stats: [1, 'Playbook Complete'],
  debug: [0, 'Debug'],
  verbose: [0, 'Verbose'],
  deprecated: [0, 'Deprecated'],
  warning: [0, 'Warning'],
  system_warning: [0, 'System Warning'],
  error: [0, 'Error'],
};

/** Ad hoc command events: the labels AWX knows for them; others show as stored. */
const COMMAND_EVENTS: Record<string, string> = {
  runner_on_failed: 'Host Failed',
  runner_on_ok: 'Host OK',
  runner_on_unreachable: 'Host Unreachable',
  runner_on_skipped: 'Host Skipped',
  debug: 'Debug',
  verbose: 'Verbose',
  deprecated: 'Deprecated',
  warning: 'Warning',
  system_warning: 'System Warning',
  error: 'Error',
};

/** Events AWX keeps out of the tree (their parent is the nearest playbook event's). */
export const META_EVENTS: ReadonlySet<string> = new Set(['debug', 'verbose', 'warning', 'error', 'system_warning', 'deprecated']);

/** An event's level in the tree: 0 playbook, 1 play, 2 task, 3 host (0 for events AWX does not know). */
export const eventLevel = (event: string): number => (Object.hasOwn(PLAYBOOK_EVENTS, event) ? PLAYBOOK_EVENTS[event][0] : 0);

interface PlaybookEventFields {
  event: string;
  play?: string;
  task?: string;
  role?: string;
  event_data?: unknown;
}

const objectOr = (value: unknown): Record<string, any> => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, any>) : {});

/** AWX's get_event_display2: the label, with the play or task named, and async runs told apart. */
export function playbookEventDisplay(row: PlaybookEventFields): string {
  let label = Object.hasOwn(PLAYBOOK_EVENTS, row.event) ? PLAYBOOK_EVENTS[row.event][1] : row.event;
  const data = objectOr(row.event_data);
  if (row.event === 'playbook_on_play_start' && row.play) label = `${label} (${row.play})`;
  else if (row.event === 'playbook_on_task_start' && row.task) {
    if (data.is_conditional) label = 'Handler Notified';
    label = row.role ? `${label} (${row.role} | ${row.task})` : `${label} (${row.task})`;
  }
  const res = objectOr(data.res);
  if (row.event === 'runner_on_async_ok' && (res.failed || (res.rc ?? 0) !== 0)) label = 'Host Async Failed';
  if (row.event === 'runner_on_ok' || row.event === 'runner_on_failed') {
    const moduleName = objectOr(res.invocation).module_name;
    if (moduleName && res.ansible_job_id) label = moduleName === 'async_status' ? 'Host Async Checking' : 'Host Async Started';
  }
  if ((row.event === 'runner_on_failed' || row.event === 'runner_on_async_failed') && res.msg === 'timed out') label = 'Host Async Timeout';
  return label;
}

/** The label of an ad hoc command's event. */
export const commandEventDisplay = (event: string): string => (Object.hasOwn(COMMAND_EVENTS, event) ? COMMAND_EVENTS[event] : event);
