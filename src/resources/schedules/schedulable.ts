/**
 * The template kinds a schedule may launch. composeServices builds them from the run kinds with a
 * schedule launcher (services.scheduleKinds): the schedule's access policy asks each kind's `action`
 * of its template, the scheduler launches through each kind's `launcher`.
 */

import type { ServiceView } from '../../api/context.ts';
import { ScheduleKinds } from '../../runs/run-services.ts';

// The schedule kinds are part of the run services (src/runs/run-services.ts), which composeServices builds.
export type { ScheduledLaunch, ScheduleKind } from '../../runs/run-services.ts';
export { ScheduleKinds } from '../../runs/run-services.ts';

/**
 * The schedule kinds of the service a request reaches: every request's context carries the
 * composed services (src/runs/run-services.ts), whose scheduleKinds composeServices built.
 */
export function scheduleKindsOf(service: ServiceView): ScheduleKinds {
  const kinds = (service as ServiceView & { scheduleKinds?: unknown }).scheduleKinds;
  if (!(kinds instanceof ScheduleKinds)) throw new Error('the service was not composed with schedule kinds');
  return kinds;
}
