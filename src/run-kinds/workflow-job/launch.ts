/**
 * How a workflow job is made: launched from its template (launch/), as the node of another workflow
 * (launch_type workflow), or relaunched. Its values and graph are copied; the workflow pass
 * (src/run-kinds/workflow-job/workflow-pass.ts) runs it.
 */
import { hasObjectRole } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { forbidden, ValidationError } from '../../api/errors.ts';
import type { Queryable, Row } from '../../db/database.ts';
import type { WorkflowJobTemplateRow, WorkflowJobTemplateLabelRow } from '../../db/tables.ts';
import { activeSurvey } from '../../resources/job-templates/launch-description.ts';
import { acceptPrompts, promptColumns, promptsInBody } from '../../runs/accept-prompts.ts';
import type { Launcher, RunPlan } from '../../runs/launch.ts';
import { askFlags } from '../../runs/prompts.ts';
import type { WorkflowNodeLaunch } from '../../runs/run-kind.ts';
import { linkedCredentials, nodePrompts } from './node-prompts.ts';
import { WORKFLOW_TEMPLATE_FACET } from './prompts.ts';
import { copyTemplateGraph } from './graph-copy.ts';
import { WORKFLOW_JOB } from './workflow-job-kind-ref.ts';
import { savedVariables, templateExtraVars } from '../../resources/job-templates/survey-variables.ts';
import { pythonJson } from '../../api/python-json.ts';

export interface WorkflowSpec {
  /** Its columns of the prompts are copied by name. */
  template: WorkflowJobTemplateRow & Row;
  launchType: string;
  /** Column values over the template's (prompts). */
  values: Record<string, unknown>;
  extraVars: Record<string, unknown>;
  surveyPasswords?: Record<string, string>;
  labelIds?: readonly number[];
}

/** The workflow job of `spec` (pending), with its graph and labels. */
export function workflowPlan(spec: WorkflowSpec): RunPlan<WorkflowJobTemplateRow> {
  const { template } = spec;
  return {
    values: {
      name: template.name,
      description: template.description,
      unified_job_template_id: template.id,
      workflow_job_template_id: template.id,
      organization_id: template.organization_id,
      launch_type: spec.launchType,
      // The template's values of what a launch may choose: the workflow job passes them down to its nodes.
      ...Object.fromEntries(WORKFLOW_TEMPLATE_FACET.prompts.filter((p) => p.shape === 'column').map((p) => [p.column!, template[p.column!]])),
      allow_simultaneous: template.allow_simultaneous,
      ...spec.values,
      extra_vars: pythonJson(spec.extraVars),
      survey_passwords: JSON.stringify(spec.surveyPasswords ?? {}),
      task_impact: 0,
    },
    link: async (tx, run) => {
      await copyTemplateGraph(tx, run.id, template.id, run.created_by_id);
      const labels = spec.labelIds ?? (await tx.query<Pick<WorkflowJobTemplateLabelRow, 'label_id'>>('SELECT label_id FROM workflow_job_template_labels WHERE workflow_job_template_id = $1', [template.id])).map((r) => r.label_id);
      if (labels.length) await tx.query('INSERT INTO workflow_job_labels (workflow_job_id, label_id) SELECT $1, unnest($2::int[]) ON CONFLICT DO NOTHING', [run.id, [...labels]]);
    },
  };
}


/** POST /workflow_job_templates/{id}/launch/: execute_role, the prompts the template asks for, the survey's answers. */
export const workflowTemplateLauncher: Launcher<unknown, WorkflowJobTemplateRow> = {
  kind: WORKFLOW_JOB,
  async plan(tx: Queryable, ctx: RequestContext, template, body) {
    if (!template) throw new Error('a workflow launch needs its template');
    if (!(await hasObjectRole(ctx, tx, 'workflow_job_template', template.id, 'execute_role'))) throw forbidden();
    const prompts = await acceptPrompts(tx, WORKFLOW_TEMPLATE_FACET, template, promptsInBody(body), { unasked: 'ignore', user: ctx, parse: true });
    const values = promptColumns(WORKFLOW_TEMPLATE_FACET, prompts.values);
    const plan = workflowPlan({ template, launchType: 'manual', values, ...templateExtraVars(template, prompts.variables), labelIds: prompts.values.labels as number[] | undefined });
    return { ...plan, ignored: prompts.ignored };
  },
};

/** What describes a workflow's launch (GET launch/). */
export async function describeWorkflowLaunch(db: Queryable, template: WorkflowJobTemplateRow): Promise<Record<string, unknown>> {
  const survey = activeSurvey(template);
  const asks = askFlags(WORKFLOW_TEMPLATE_FACET.prompts, template);
  const [inventory] = template.inventory_id ? await db.query('SELECT id, name FROM inventories WHERE id = $1', [template.inventory_id]) : [];
  const nodes = await db.query(
    `SELECT n.id, t.name, t.kind FROM workflow_job_template_nodes n LEFT JOIN unified_job_templates t ON t.id = n.unified_job_template_id
     WHERE n.workflow_job_template_id = $1 AND t.id IS NULL`, [template.id]);
  return {
    can_start_without_user_input: !Object.values(asks).some(Boolean) && !survey,
    ...asks,
    survey_enabled: survey !== null,
    variables_needed_to_start: survey ? (survey.spec ?? []).filter((q) => q.required).map((q) => q.variable) : [],
    node_templates_missing: nodes.map((n) => n.id),
    node_prompts_rejected: [],
    workflow_job_template_data: { name: template.name, id: template.id, description: template.description },
    defaults: {
      extra_vars: template.extra_vars,
      inventory: inventory ?? {},
      limit: template.limit,
      scm_branch: template.scm_branch,
      job_tags: template.job_tags,
      skip_tags: template.skip_tags,
    },
  };
}

/** The workflow jobs above `workflowJobId` (it, its parent workflow job, ...), with their templates. */
async function spawnChain(tx: Queryable, workflowJobId: number): Promise<Array<{ id: number; template: number | null }>> {
  return tx.query<{ id: number; template: number | null }>(
    `WITH RECURSIVE chain(id, template, depth) AS (
       SELECT id, workflow_job_template_id, 0 FROM unified_jobs WHERE id = $1
       UNION ALL
       SELECT u.id, u.workflow_job_template_id, chain.depth + 1 FROM chain
       JOIN workflow_job_nodes n ON n.job_id = chain.id JOIN unified_jobs u ON u.id = n.workflow_job_id WHERE chain.depth < 100)
     SELECT id, template FROM chain ORDER BY depth`,
    [workflowJobId],
  );
}

/** A workflow run as the node of another (launch_type workflow): refused when it would run inside itself. */
export const nestedWorkflowLauncher: Launcher<WorkflowNodeLaunch, WorkflowJobTemplateRow> = {
  kind: WORKFLOW_JOB,
  async plan(tx, _ctx, template, launch) {
    const { node, workflowJob, extraVars } = launch;
    const chain = await spawnChain(tx, workflowJob.id);
    if (chain.some((c) => c.template === template!.id)) {
      throw new ValidationError({ __all__: [`Workflow Job spawned from workflow could not start because it would result in recursion (spawn order, most recent first: ${chain.map((c) => c.id).join(', ')})`] });
    }
    const given = nodePrompts(WORKFLOW_TEMPLATE_FACET, node, workflowJob, await linkedCredentials(tx, launch), extraVars);
    const { values, variables } = await acceptPrompts(tx, WORKFLOW_TEMPLATE_FACET, template!, given, { unasked: 'ignore', takeVariables: true });
    // Answers to password questions a node keeps (a catalog request's) are stored encrypted.
    return workflowPlan({ template: template!, launchType: 'workflow', values: promptColumns(WORKFLOW_TEMPLATE_FACET, values), ...templateExtraVars(template!, savedVariables(template!, variables)) });
  },
};
