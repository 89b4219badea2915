/** AWX's wording for why a run is not moving, or why it failed before starting. */
export const NOT_ENOUGH_CAPACITY = 'This job is not ready to start because there is not enough available capacity.';

export const blockedBy = (kind: string, id: number) => `waiting for ${kind}-${id} to finish`;

export const noInstances = (groups: string) =>
  `This job cannot start: no enabled instance with capacity in the instance group(s) it may run in (${groups}).`;

export const noNodeHoldsDirectory = (localPath: string) =>
  `This job cannot start: no node holds the manual project's directory "${localPath}" under its projects root (a manual project runs only on nodes holding its directory).`;

export const previousTaskFailed = (dependency: { kind: string; name: string; id: number }) =>
  `Previous Task Failed: ${JSON.stringify({ job_type: dependency.kind, job_name: dependency.name, job_id: String(dependency.id) })}`;

/** Explanations the task manager writes while a run is pending, cleared when it moves on. */
export function isWaitingExplanation(text: string): boolean {
  return text === NOT_ENOUGH_CAPACITY || text.startsWith('waiting for ') || text.startsWith('This job cannot start: no enabled instance')
    || text.startsWith("This job cannot start: no node holds the manual project's directory");
}
