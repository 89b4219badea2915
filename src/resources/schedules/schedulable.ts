/**
 * The template kinds a schedule may launch. composeServices builds them from the run kinds with a
 * schedule launcher (services.scheduleKinds): the schedule's access policy asks each kind's `action`
 * of its template, the scheduler launches through each kind's `launcher`.
 */

import type { ServiceView } from '../../api/context.ts';
import type { Launcher } from '../../runs/launch.ts';
import type { TemplateFacet } from '../../runs/prompts.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

/** A stored schedule with its saved credentials and labels, as a launcher reads it. */
export interface ScheduledLaunch {
  schedule: AnyRow;
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

  get templates(): string[] {
    return [...this.byTemplate.keys()];
  }
}

/**
 * The schedule kinds of the service a request reaches: every request's context carries the
 * composed services (src/runs/run-services.ts), whose scheduleKinds composeServices built.
 */
export function scheduleKindsOf(service: ServiceView): ScheduleKinds {
  const kinds = (service as ServiceView & { scheduleKinds?: unknown }).scheduleKinds;
  if (!(kinds instanceof ScheduleKinds)) throw new Error('the service was not composed with schedule kinds');
  return kinds;
}
