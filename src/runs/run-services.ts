import type { FastifyInstance } from 'fastify';
import type { Services, RequestContext, ServiceView } from '../api/context.ts';
import type { Queryable, Row } from '../db/database.ts';
import type { ScheduleRow, UnifiedJobRow } from '../db/tables.ts';
import type { Launcher, RunKinds } from './run-kind.ts';
import type { TemplateFacet } from './prompts.ts';

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
/** The run kinds of the service a request reached (its ServiceView is the composed services). */
export function runKindsOf(service: ServiceView): RunKinds {
  const kinds = (service as Partial<RunServices>).runKinds;
  if (!kinds) throw new Error('the service was not composed with run kinds');
  return kinds;
}

/** AWX's unified_job_type of a template whose kind in unified_job_templates is `templateKind`: the name of its runs' kind. */
export function unifiedJobTypeOf(service: ServiceView, templateKind: string): string | undefined {
  return runKindsOf(service).forTemplateTable(service.resources.get(templateKind).table)?.name;
}

export function runServicesOf(services: Services): RunServices {
  const candidate = services as Partial<RunServices>;
  if (!candidate.runKinds || !candidate.launches || !candidate.scheduleKinds) throw new Error('the services were not composed with run kinds');
  return services as RunServices;
}

/** Why a launch did not happen: a status and a body in the API's error shapes. */
export interface Refusal {
  status: number;
  body: Record<string, unknown>;
}

export type LaunchResult =
  | { ok: true; run: UnifiedJobRow; ignored: Record<string, unknown>; warnings: string[] }
  | { ok: false; refusal: Refusal };

export interface LaunchService {
  launch<Input, Template extends Row>(ctx: RequestContext, launcher: Launcher<Input, Template>, template: Template | null, input: Input): Promise<LaunchResult>;
  /**
   * The same launch inside a transaction the caller holds (a workflow starting its nodes): a
   * refusal rolls back only what this launch did (a savepoint), and is answered, not thrown.
   */
  launchWithin<Input, Template extends Row>(tx: Queryable, ctx: RequestContext, launcher: Launcher<Input, Template>, template: Template | null, input: Input): Promise<LaunchResult>;
  /**
   * Several launches of one template inside the caller's transaction (event rules firing a batch of
   * events), each answered as launchWithin would answer it, stored and queued together; a launch
   * that fails with an error (not a refusal) is answered as a refusal with status 500.
   */
  launchAllWithin<Input, Template extends Row>(
    tx: Queryable, ctx: RequestContext, launcher: Launcher<Input, Template>, template: Template | null, inputs: readonly Input[],
  ): Promise<LaunchResult[]>;
}

/** A schedule as stored: its extra_data is an object (never null). */
export type StoredSchedule = ScheduleRow & { extra_data: Record<string, unknown> };

/** A stored schedule with its saved credentials and labels, as a launcher reads it. */
export interface ScheduledLaunch {
  schedule: StoredSchedule;
  credentialIds: number[];
  labelIds: number[];
  instanceGroupIds: number[];
}

export interface ScheduleKind {
  /** The template's resource name, its kind in unified_job_templates (job_template, project...). */
  template: string;
  /** The action of the template's access policy that creating a schedule needs (execute, update). */
  action: string;
  /** How a due schedule becomes a run (launch_type scheduled), through the launch service. */
  launcher: Launcher<ScheduledLaunch>;
  /** The run kind's template facet, for templates that take prompts: what a schedule or a workflow node may save. */
  facet?: TemplateFacet;
}

/** The template kinds of one composition (composeServices builds them from its run kinds), by template kind. */
export class ScheduleKinds {
  private readonly byTemplate: ReadonlyMap<string, ScheduleKind>;

  constructor(kinds: readonly ScheduleKind[]) {
    this.byTemplate = new Map(kinds.map((k) => [k.template, k]));
  }

  /** The kind of a template kind, or undefined when it cannot be scheduled. */
  get(template: string): ScheduleKind | undefined {
    return this.byTemplate.get(template);
  }

  /** The prompts templates of this kind take (job and workflow job templates), or undefined for kinds that take none. */
  facet(template: string): TemplateFacet | undefined {
    return this.byTemplate.get(template)?.facet;
  }
}
