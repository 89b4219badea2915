/**
 * A node's prompts (the values it launches its template with) checked against what the template
 * lets a launch choose, as AWX checks a saved launch configuration, by acceptPrompts with the
 * template kind's prompts: a value the template does not ask for is refused with "Field is not
 * configured to prompt on launch." unless it equals the template's own value; templates that take
 * no prompts at all refuse any ("Field is not allowed on launch."); each object the request names
 * must be one the caller may use. A system job template takes its options (days...) as extra_data,
 * checked as its launch checks them.
 */
import type { RequestContext } from '../../api/context.ts';
import { ValidationError, type FieldErrors } from '../../api/errors.ts';
import type { Values } from '../../api/resource.ts';
import type { Queryable, Row } from '../../db/database.ts';
import { acceptPrompts, NOT_ALLOWED } from '../../runs/accept-prompts.ts';
import { scheduleKindsOf } from '../schedules/schedulable.ts';
import { systemJobVariableProblems } from '../system-job-templates/system-job-options.ts';
import { templateKind } from './node-access.ts';
import { NODE_PROMPT_COLUMNS } from './node-prompt-fields.ts';

async function refusals(check: () => Promise<unknown>): Promise<FieldErrors> {
  try {
    await check();
    return {};
  } catch (err) {
    if (err instanceof ValidationError) return err.errors;
    throw err;
  }
}

/** Throws a 400 naming each prompt of the node (values over the stored node) its template does not accept. */
export async function checkNodePrompts(tx: Queryable, ctx: RequestContext, values: Values, existing: Row | null): Promise<void> {
  const templateId = ('unified_job_template' in values ? values.unified_job_template : existing?.unified_job_template_id) as number | null | undefined;
  if (!templateId) return;
  // As AWX: prompts are checked when the request gives some, or changes the template.
  if (![...NODE_PROMPT_COLUMNS.map(([field]) => field), 'extra_data'].some((name) => name in values) && !('unified_job_template' in values)) return;
  const kind = await templateKind(tx, templateId);
  if (!kind) return;
  const prompts = Object.fromEntries(NODE_PROMPT_COLUMNS.map(([field, column]) => [field, field in values ? values[field] : existing?.[column]]));
  const extraData = (('extra_data' in values ? values.extra_data : existing?.extra_data) ?? {}) as Record<string, unknown>;
  const facet = scheduleKindsOf(ctx.service).facet(kind);
  const [template] = facet ? await tx.query(`SELECT * FROM ${facet.table} WHERE id = $1`, [templateId]) : [{}];
  const given = facet ? { ...prompts, extra_vars: extraData } : prompts;
  const errors = await refusals(() => acceptPrompts(tx, facet, template, given, { unasked: 'refuse', templateValuesPass: true }));
  if (kind === 'system_job_template') {
    const [system] = await tx.query<{ job_type: string }>('SELECT job_type FROM system_job_templates WHERE id = $1', [templateId]);
    const problems = systemJobVariableProblems(system?.job_type ?? '', extraData);
    if (problems.length) errors.extra_data = problems;
  } else if (!facet && Object.keys(extraData).length) errors.extra_data = [NOT_ALLOWED];
  if (Object.keys(errors).length) throw new ValidationError(errors);
  const named = Object.fromEntries(Object.entries(prompts).filter(([field]) => field in values));
  await acceptPrompts(tx, facet, template, named, { unasked: 'refuse', templateValuesPass: true, user: ctx });
}
