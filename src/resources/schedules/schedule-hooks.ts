/**
 * Checks and computed fields of a schedule, in its write's transaction: the rrule as AWX validates
 * it, the template kinds that can be scheduled, the saved prompts against the template, survey
 * passwords encrypted, and dtstart, dtend and next_run computed from the rule.
 */
import type { RequestContext } from '../../api/context.ts';
import { ValidationError } from '../../api/errors.ts';
import type { Values } from '../../api/resource.ts';
import type { Queryable, Row } from '../../db/database.ts';
import { parseVariables, variablesProblem } from '../../inventory/variables.ts';
import { decryptSecret, encryptSecret, isEncryptedSecret } from '../../secrets/encryption.ts';
import { activeSurvey } from '../job-templates/launch-description.ts';
import { passwordPurpose, passwordVariables } from '../job-templates/survey-spec.ts';
import { computeSchedule, preview, UnusableRule } from './rrule-schedule.ts';
import { parseRrule, type ParsedRrule } from './rrule-text.ts';
import { loadTemplate } from './schedule-access.ts';
import { promptProblems } from './schedule-prompts.ts';
import { SAVED_PROMPT_COLUMNS } from './schedule-prompt-fields.ts';
import { scheduleKindsOf, type ScheduleKinds } from './schedulable.ts';

/** The rrule parsed, or a 400 {rrule: [...]} with AWX's messages. */
export function validRrule(text: unknown): ParsedRrule {
  const parsed = parseRrule(String(text ?? ''));
  if ('problems' in parsed) throw new ValidationError({ rrule: parsed.problems });
  return parsed.rrule;
}

/** What `compute` answers for a rule, or a 400 {rrule: [...]} when the rule never occurs or costs too much to expand. */
function usable<T>(compute: () => T): T {
  try {
    return compute();
  } catch (err) {
    if (err instanceof UnusableRule) throw ValidationError.field('rrule', err.message);
    throw err;
  }
}

/** POST /schedules/preview/: the rule's next occurrences, or a 400 as on save. */
export const previewRrule = (text: unknown) => usable(() => preview(validRrule(text)));

/** extra_data as an object: a JSON or YAML text is read as a launch reads extra_vars. */
function readExtraData(value: unknown): Record<string, unknown> {
  if (typeof value === 'string') {
    const problem = variablesProblem(value);
    if (problem) throw ValidationError.field('extra_data', problem);
    return parseVariables(value);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw ValidationError.field('extra_data', 'Expected a dictionary of variables.');
  return value as Record<string, unknown>;
}

function templateProblems(kinds: ScheduleKinds, kind: string, template: Row): string | null {
  if (!kinds.get(kind)) return `Schedules cannot be created for a ${kind.replace(/_/g, ' ')}.`;
  if (kind === 'inventory_source' && (template.source === 'file' || template.source === '')) return 'Inventory Source must be a cloud resource.';
  if (kind === 'project' && template.scm_type === '') return 'Manual Project cannot have a schedule set.';
  return null;
}

/**
 * Survey password answers are kept encrypted: "$encrypted$" keeps the stored answer (AWX), a new
 * answer is encrypted. Answers the extra_data as a launch would see it, to check against the survey.
 */
function sealPasswords(template: Row, extraData: Record<string, unknown>, existing: Row | null): Record<string, unknown> {
  const survey = activeSurvey(template);
  const plain = { ...extraData };
  if (!survey) return plain;
  for (const variable of passwordVariables(survey)) {
    const value = extraData[variable];
    if (value === '$encrypted$') {
      const stored = (existing?.extra_data as Record<string, unknown> | undefined)?.[variable];
      if (stored === undefined) delete extraData[variable];
      else extraData[variable] = stored;
    } else if (typeof value === 'string' && !isEncryptedSecret(value)) {
      extraData[variable] = encryptSecret(passwordPurpose(variable), value);
    }
    if (isEncryptedSecret(extraData[variable])) plain[variable] = decryptSecret(passwordPurpose(variable), extraData[variable] as string);
    else delete plain[variable];
  }
  return plain;
}

export async function checkSchedule(tx: Queryable, ctx: RequestContext, values: Values, existing: Row | null): Promise<void> {
  const onlyDisabling = existing && Object.keys(values).length === 1 && values.enabled === false;
  const rrule = validRrule(values.rrule ?? existing?.rrule);
  if ('extra_data' in values) values.extra_data = readExtraData(values.extra_data);
  const templateId = values.unified_job_template ?? existing?.unified_job_template_id;
  const template = await loadTemplate(tx, ctx.service.resources, templateId);
  if (!template) throw ValidationError.field('unified_job_template', 'This field is required.');
  if (!onlyDisabling) {
    const problem = templateProblems(scheduleKindsOf(ctx.service), template.kind, template.row);
    if (problem) throw ValidationError.field('unified_job_template', problem);
    if (values.extra_data !== undefined) values.extra_data = { ...(values.extra_data as Record<string, unknown>) };
    const extraData = (values.extra_data ?? existing?.extra_data ?? {}) as Record<string, unknown>;
    const plainExtraData = sealPasswords(template.row, values.extra_data === undefined ? { ...extraData } : extraData, existing);
    // The saved prompts as a launch would get them: the request's over the stored ones.
    const prompts = Object.fromEntries(SAVED_PROMPT_COLUMNS.map(([field, column]) => [field, field in values ? values[field] : existing?.[column]]));
    const errors = await promptProblems(tx, ctx, template.kind, template.row, prompts, plainExtraData, Object.keys(values));
    if (Object.keys(errors).length) throw new ValidationError(errors);
  }
  // Disabling needs no expansion, so a schedule whose rule is refused today can still be turned off.
  if (onlyDisabling) values.next_run = null;
  else Object.assign(values, usable(() => computeSchedule(rrule, (values.enabled ?? existing?.enabled ?? true) as boolean)));
}
