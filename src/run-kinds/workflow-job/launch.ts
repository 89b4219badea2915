/**
 * How a workflow job is made: launched from its template (launch/), as the node of another workflow
 * (launch_type workflow), or relaunched. Its values and graph are copied; the workflow pass
 * (src/run-kinds/workflow-job/workflow-pass.ts) runs it.
 */
import { hasObjectRole } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { forbidden, ValidationError } from '../../api/errors.ts';
import { optionField } from '../../ansible/option-values.ts';
import { FieldProblem } from '../../api/fields.ts';
import type { Queryable } from '../../db/database.ts';
import { parseVariables, variablesProblem } from '../../inventory/variables.ts';
import { activeSurvey } from '../../resources/job-templates/launch-description.ts';
import type { Launcher, RunPlan } from '../../runs/launch.ts';
import { checkLaunchObjects } from '../job/launch-objects.ts';
import { copyTemplateGraph } from './graph-copy.ts';
import { WORKFLOW_JOB } from './workflow-job-kind-ref.ts';
import { templateExtraVars } from '../../resources/job-templates/survey-variables.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

/** Launch-time fields of a workflow and the ask flag allowing each. */
const PROMPTS: Record<string, string> = { inventory: 'inventory', limit: 'limit', scm_branch: 'scm_branch', labels: 'labels', job_tags: 'tags', skip_tags: 'skip_tags' };

export interface WorkflowSpec {
  template: AnyRow;
  launchType: string;
  /** Column values over the template's (prompts). */
  values: Record<string, unknown>;
  extraVars: Record<string, unknown>;
  surveyPasswords?: Record<string, string>;
  labelIds?: readonly number[];
}

/** The workflow job of `spec` (pending), with its graph and labels. */
export function workflowPlan(spec: WorkflowSpec): RunPlan {
  const { template } = spec;
  return {
    values: {
      name: template.name,
      description: template.description,
      unified_job_template_id: template.id,
      workflow_job_template_id: template.id,
      organization_id: template.organization_id,
      launch_type: spec.launchType,
      inventory_id: template.inventory_id,
      limit: template.limit,
      scm_branch: template.scm_branch,
      job_tags: template.job_tags,
      skip_tags: template.skip_tags,
      allow_simultaneous: template.allow_simultaneous,
      ...spec.values,
      extra_vars: JSON.stringify(spec.extraVars),
      survey_passwords: JSON.stringify(spec.surveyPasswords ?? {}),
      task_impact: 0,
    },
    link: async (tx, run) => {
      await copyTemplateGraph(tx, run.id, template.id, run.created_by_id);
      const labels = spec.labelIds ?? (await tx.query<AnyRow>('SELECT label_id FROM workflow_job_template_labels WHERE workflow_job_template_id = $1', [template.id])).map((r) => r.label_id);
      if (labels.length) await tx.query<AnyRow>('INSERT INTO workflow_job_labels (workflow_job_id, label_id) SELECT $1, unnest($2::int[]) ON CONFLICT DO NOTHING', [run.id, [...labels]]);
    },
  };
}


const limitField = optionField('pattern');
const listField = optionField('list');

function parsePrompt(name: string, value: unknown): unknown {
  try {
    if (name === 'inventory') {
      if (!Number.isInteger(value) || (value as number) < 1) throw new FieldProblem('Incorrect type. Expected pk value.');
      return value;
    }
    if (name === 'labels') {
      if (!Array.isArray(value) || !value.every((id) => Number.isInteger(id) && id > 0)) throw new FieldProblem('Expected a list of label ids.');
      return value;
    }
    if (name === 'limit') return limitField.parse(value);
    if (name === 'scm_branch') {
      if (typeof value !== 'string') throw new FieldProblem('Not a valid string.');
      return value;
    }
    return listField.parse(value);
  } catch (err) {
    if (err instanceof FieldProblem) throw ValidationError.field(name, err.message);
    throw err;
  }
}

/** POST /workflow_job_templates/{id}/launch/: execute_role, the prompts the template asks for, the survey's answers. */
export const workflowTemplateLauncher: Launcher<unknown, AnyRow> = {
  kind: WORKFLOW_JOB,
  async plan(tx: Queryable, ctx: RequestContext, template, body) {
    if (!template) throw new Error('a workflow launch needs its template');
    if (!(await hasObjectRole(ctx, tx, 'workflow_job_template', template.id, 'execute_role'))) throw forbidden();
    if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) throw new ValidationError({ __all__: ['Expected a JSON object.'] });
    const input = (body ?? {}) as Record<string, unknown>;
    const ignored: Record<string, unknown> = {};
    const values: Record<string, unknown> = {};
    let labelIds: number[] | undefined;
    for (const [field, flag] of Object.entries(PROMPTS)) {
      if (!(field in input) || input[field] === null) continue;
      if (template[`ask_${flag}_on_launch`] !== true) {
        ignored[field] = input[field];
        continue;
      }
      const value = parsePrompt(field, input[field]);
      if (field === 'inventory') {
        if (!(await hasObjectRole(ctx, tx, 'inventory', value as number, 'use_role'))) throw forbidden('You do not have permission to use this inventory.');
        values.inventory_id = value;
      } else if (field === 'labels') labelIds = await checkLaunchObjects(tx, ctx, 'labels', value as number[]);
      else values[field] = value;
    }
    let given: Record<string, unknown> = {};
    if (input.extra_vars !== undefined && input.extra_vars !== null) {
      const text = typeof input.extra_vars === 'string' ? input.extra_vars : JSON.stringify(input.extra_vars);
      const problem = variablesProblem(text);
      if (problem) throw ValidationError.field('extra_vars', problem);
      const all = parseVariables(text);
      const survey = (activeSurvey(template)?.spec ?? []).map((q) => q.variable);
      given = template.ask_variables_on_launch ? all : Object.fromEntries(Object.entries(all).filter(([k]) => survey.includes(k)));
      const rest = Object.fromEntries(Object.entries(all).filter(([k]) => !(k in given)));
      if (Object.keys(rest).length) ignored.extra_vars = rest;
    }
    const plan = workflowPlan({ template, launchType: 'manual', values, ...templateExtraVars(template, given), labelIds });
    return { ...plan, ignored };
  },
};

/** What describes a workflow's launch (GET launch/). */
export async function describeWorkflowLaunch(db: Queryable, template: AnyRow): Promise<Record<string, unknown>> {
  const survey = activeSurvey(template);
  const asks = Object.fromEntries(Object.values(PROMPTS).concat('variables').map((f) => [`ask_${f}_on_launch`, template[`ask_${f}_on_launch`] === true]));
  const [inventory] = template.inventory_id ? await db.query<AnyRow>('SELECT id, name FROM inventories WHERE id = $1', [template.inventory_id]) : [];
  const nodes = await db.query<AnyRow>(
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
  return tx.query<AnyRow>(
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
export const nestedWorkflowLauncher: Launcher<{ node: AnyRow; workflowJob: AnyRow; extraVars: Record<string, unknown> }, AnyRow> = {
  kind: WORKFLOW_JOB,
  async plan(tx, _ctx, template, { node, workflowJob, extraVars }) {
    const chain = await spawnChain(tx, workflowJob.id);
    if (chain.some((c) => c.template === template!.id)) {
      throw new ValidationError({ __all__: [`Workflow Job spawned from workflow could not start because it would result in recursion (spawn order, most recent first: ${chain.map((c) => c.id).join(', ')})`] });
    }
    const values: Record<string, unknown> = {};
    for (const [column, flag] of [['limit', 'limit'], ['scm_branch', 'scm_branch'], ['job_tags', 'tags'], ['skip_tags', 'skip_tags']]) {
      const value = node[column] ?? (template![`ask_${flag}_on_launch`] ? workflowJob[column] : null);
      if (value) values[column] = value;
    }
    if (node.inventory_id) values.inventory_id = node.inventory_id;
    return workflowPlan({ template: template!, launchType: 'workflow', values, ...templateExtraVars(template!, extraVars) });
  },
};
