import type { FastifyInstance } from 'fastify';
import type { Services } from '../api/context.ts';
import type { LaunchService } from './launch.ts';
import type { RunKinds } from './run-kind.ts';
import type { ScheduleKinds } from '../resources/schedules/schedulable.ts';

/** The services of a running service: the framework's (Services) and what runs need, as composeServices builds them. */
export type RunServices = Services & {
  /** The run kinds of the composition root, by name. */
  runKinds: RunKinds;
  /** Every launch of a run goes through it (its gates in their order). */
  launches: LaunchService;
  /** The template kinds schedules launch, from the run kinds with a schedule launcher. */
  scheduleKinds: ScheduleKinds;
};

/** A route module that launches or reads runs (the framework's own modules take Services). */
export type RunRouteModule = (app: FastifyInstance, services: RunServices) => void | Promise<void>;

/**
 * The run services behind a value the framework hands on typed as Services (a resource's `create`
 * is given the services the routes were registered with, which composeServices made).
 */
export function runServicesOf(services: Services): RunServices {
  const candidate = services as Partial<RunServices>;
  if (!candidate.runKinds || !candidate.launches || !candidate.scheduleKinds) throw new Error('the services were not composed with run kinds');
  return services as RunServices;
}
