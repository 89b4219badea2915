/**
 * The template kinds a schedule may launch. The composition root lists them (SCHEDULE_KINDS) and
 * composeServices makes them known here, as it does resources: the schedule's access policy asks
 * each kind's `action` of its template, the scheduler launches through each kind's `launcher`.
 */

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

let kinds = new Map<string, ScheduleKind>();

export function registerScheduleKinds(list: readonly ScheduleKind[]): void {
  kinds = new Map(list.map((k) => [k.template, k]));
}

/** The kind of a template kind, or undefined when it cannot be scheduled. */
export const scheduleKind = (template: string): ScheduleKind | undefined => kinds.get(template);

/** The prompts templates of this kind take (job and workflow job templates), or undefined for kinds that take none. */
export const templateFacet = (template: string): TemplateFacet | undefined => kinds.get(template)?.facet;

export const schedulableTemplates = (): string[] => [...kinds.keys()];
