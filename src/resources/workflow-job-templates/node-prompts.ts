/**
 * A node's prompts (the values it launches its template with) checked against what the template
 * lets a launch choose, as AWX checks a saved launch configuration: a value the template does not
 * ask for is refused with "Field is not configured to prompt on launch." unless it equals the
 * template's own value; templates that take no prompts at all refuse any. A system job template
 * takes its options (days...) as extra_data, checked as its launch checks them.
 */
import { ValidationError, type FieldErrors } from '../../api/errors.ts';
import type { Values } from '../../api/resource.ts';
import type { Queryable } from '../../db/database.ts';
import { parseVariables } from '../../inventory/variables.ts';
import { activeSurvey } from '../job-templates/launch-description.ts';
import { systemJobVariableProblems } from '../system-job-templates/system-job-options.ts';
import { templateKind } from './node-access.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

/** Node prompt fields, each with the ask flag allowing it on a job template and a workflow (null: never) and the template's column. */
export const NODE_PROMPTS: Record<string, { job: string; workflow: string | null; column: string }> = {
  inventory: { job: 'inventory', workflow: 'inventory', column: 'inventory_id' },
  limit: { job: 'limit', workflow: 'limit', column: 'limit' },
  scm_branch: { job: 'scm_branch', workflow: 'scm_branch', column: 'scm_branch' },
  job_type: { job: 'job_type', workflow: null, column: 'job_type' },
  job_tags: { job: 'tags', workflow: 'tags', column: 'job_tags' },
  skip_tags: { job: 'skip_tags', workflow: 'skip_tags', column: 'skip_tags' },
  verbosity: { job: 'verbosity', workflow: null, column: 'verbosity' },
  diff_mode: { job: 'diff_mode', workflow: null, column: 'diff_mode' },
  forks: { job: 'forks', workflow: null, column: 'forks' },
  timeout: { job: 'timeout', workflow: null, column: 'timeout' },
  job_slice_count: { job: 'job_slice_count', workflow: null, column: 'job_slice_count' },
  execution_environment: { job: 'execution_environment', workflow: null, column: 'execution_environment_id' },
};

const TEMPLATE_TABLES: Record<string, string> = { job_template: 'job_templates', workflow_job_template: 'workflow_job_templates' };
const NOT_PROMPTED = 'Field is not configured to prompt on launch.';
const NOT_ALLOWED = 'Field is not allowed on launch.';

/** Variables a template takes at launch: all of them (ask_variables_on_launch) or its survey's. */
function refusedVariables(template: AnyRow, extraData: Record<string, unknown>): string[] {
  if (template.ask_variables_on_launch) return [];
  const survey = activeSurvey(template)?.spec?.map((q) => q.variable) ?? [];
  const own = parseVariables(template.extra_vars);
  return Object.keys(extraData).filter((k) => !survey.includes(k) && JSON.stringify(own[k]) !== JSON.stringify(extraData[k]));
}

/** Throws a 400 naming each prompt of the node (values over the stored node) its template does not accept. */
export async function checkNodePrompts(tx: Queryable, values: Values, existing: AnyRow | null): Promise<void> {
  const templateId = ('unified_job_template' in values ? values.unified_job_template : existing?.unified_job_template_id) as number | null | undefined;
  if (!templateId) return;
  const promptNames = [...Object.keys(NODE_PROMPTS), 'extra_data'];
  // As AWX: prompts are checked when the request gives some, or changes the template.
  if (!promptNames.some((name) => name in values) && !('unified_job_template' in values)) return;
  const kind = await templateKind(tx, templateId);
  if (!kind) return;
  const prompt = (name: string) => (name in values ? values[name] : existing?.[NODE_PROMPTS[name]?.column ?? name]);
  const errors: FieldErrors = {};
  const table = TEMPLATE_TABLES[kind];
  const [template] = table ? await tx.query<AnyRow>(`SELECT * FROM ${table} WHERE id = $1`, [templateId]) : [];
  for (const [name, spec] of Object.entries(NODE_PROMPTS)) {
    const value = prompt(name);
    if (value === null || value === undefined) continue;
    if (!template) {
      errors[name] = [NOT_ALLOWED];
      continue;
    }
    const flag = kind === 'job_template' ? spec.job : spec.workflow;
    if (flag && template[`ask_${flag}_on_launch`] === true) continue;
    if (flag && template[spec.column] === value) continue;
    errors[name] = [NOT_PROMPTED];
  }
  const extraData = (prompt('extra_data') ?? {}) as Record<string, unknown>;
  if (kind === 'system_job_template') {
    const [system] = await tx.query<{ job_type: string }>('SELECT job_type FROM system_job_templates WHERE id = $1', [templateId]);
    const problems = systemJobVariableProblems(system?.job_type ?? '', extraData);
    if (problems.length) errors.extra_data = problems;
  } else if (Object.keys(extraData).length) {
    if (!template) errors.extra_data = [NOT_ALLOWED];
    else {
      const refused = refusedVariables(template, extraData);
      if (refused.length) {
        errors.extra_data = [`Variables ${refused.join(', ')} are not allowed on launch. Check the Prompt on Launch setting on the ${kind === 'job_template' ? 'Job Template' : 'Workflow Job Template'} to include Extra Variables.`];
      }
    }
  }
  if (Object.keys(errors).length) throw new ValidationError(errors);
}
