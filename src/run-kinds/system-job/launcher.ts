/** How a system job template becomes a system job: launched by a superuser, or by a schedule. */
import { isSuperuser } from '../../api/access.ts';
import { forbidden, ValidationError } from '../../api/errors.ts';

import { parseVariables, variablesProblem } from '../../inventory/variables.ts';
import { systemJobVariableProblems } from '../../resources/system-job-templates/system-job-options.ts';
import type { ScheduledLaunch } from '../../resources/schedules/schedulable.ts';
import type { Launcher } from '../../runs/launch.ts';
import type { WorkflowNodeLaunch } from '../../runs/run-kind.ts';
import type { SystemJobTemplateRow } from '../../db/tables.ts';
import type { SystemLaunchBody } from './launch-schemas.ts';
import { pythonJson } from '../../api/python-json.ts';

export const SYSTEM_JOB = { name: 'system_job', templateTable: 'system_job_templates' } as const;

function readVars(given: SystemLaunchBody['extra_vars']): Record<string, unknown> {
  if (given === undefined || given === null || given === '') return {};
  if (typeof given !== 'string') return given;
  const problem = variablesProblem(given);
  if (problem) throw ValidationError.field('extra_vars', problem);
  return parseVariables(given);
}

function systemJobValues(template: Pick<SystemJobTemplateRow, 'id' | 'name' | 'description' | 'job_type'>, vars: Record<string, unknown>, launchType: string): Record<string, unknown> {
  const problems = systemJobVariableProblems(template.job_type, vars);
  if (problems.length) throw new ValidationError({ extra_vars: problems });
  return {
    name: template.name,
    description: template.description,
    unified_job_template_id: template.id,
    job_type: template.job_type,
    extra_vars: pythonJson(vars),
    launch_type: launchType,
    task_impact: 5,
  };
}

/** POST /system_job_templates/{id}/launch/ {extra_vars: {days: N}}: superusers only (AWX). */
export const systemJobLauncher: Launcher<SystemLaunchBody, SystemJobTemplateRow> = {
  kind: SYSTEM_JOB,
  async plan(_tx, ctx, template, body) {
    if (!isSuperuser(ctx)) throw forbidden();
    return { values: systemJobValues(template!, readVars(body.extra_vars), 'manual') };
  },
};

/** A due schedule of a system job template: its extra_data are the job's options. */
export const scheduledSystemJobLauncher: Launcher<ScheduledLaunch, SystemJobTemplateRow> = {
  kind: SYSTEM_JOB,
  async plan(_tx, _ctx, template, { schedule }) {
    return { values: systemJobValues(template!, readVars(schedule.extra_data), 'scheduled') };
  },
};

/**
 * A system job a workflow node starts (launch_type workflow): the node's extra_data are its options.
 * Only superusers may put a system job template in a node (checked when the node is saved); the
 * workflow's own variables and its ancestors' artifacts are not options, so they are left out.
 */
export const workflowNodeSystemJobLauncher: Launcher<Pick<WorkflowNodeLaunch, 'node'>, SystemJobTemplateRow> = {
  kind: SYSTEM_JOB,
  async plan(_tx, _ctx, template, { node }) {
    return { values: systemJobValues(template!, readVars(node.extra_data), 'workflow') };
  },
};
