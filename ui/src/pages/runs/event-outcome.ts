/** Host events of a failure; stored with failed false when the task ignored its errors (AWX's JobEvent.failed). */
const FAILURE_EVENTS = new Set(['runner_on_failed', 'runner_item_on_failed', 'runner_on_async_failed']);

/** A failure the task ignored (ignore_errors): the play went on, Ansible counts the host as ok and ignored. */
export const isIgnoredFailure = (e: { failed?: boolean; event: string }) => FAILURE_EVENTS.has(e.event) && !e.failed;

export const IGNORED_FAILURE = 'Failed (ignored)';
