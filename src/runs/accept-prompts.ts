/**
 * The one reading of launch prompts every trigger shares (launch/, schedules when saved and when
 * due, workflow nodes when saved and when started, webhooks, event rules, callbacks): what the
 * template's ask_*_on_launch flags let through, as AWX's _accept_or_ignore_job_kwargs decides it.
 * It knows no HTTP; it answers the values taken or throws the API's 400 and 403 errors.
 */
import type { RequestContext } from '../api/context.ts';
import { ValidationError, type FieldErrors } from '../api/errors.ts';
import { FieldProblem } from '../api/fields.ts';
import { tenantPromptErrors } from '../api/tenant-boundary.ts';
import type { Queryable, Row } from '../db/database.ts';
import { parseVariables, variablesProblem } from '../inventory/variables.ts';
import { activeSurvey } from '../resources/job-templates/launch-description.ts';
import { asks, type PromptSpec, type TemplateFacet } from './prompts.ts';

export const NOT_PROMPTED = 'Field is not configured to prompt on launch.';
export const NOT_ALLOWED = 'Field is not allowed on launch.';

export interface AcceptOptions {
  /**
   * A prompt the template does not ask for: 'ignore' leaves it out and reports it (a launch's
   * ignored_fields; a saved prompt whose flag was turned off since), 'refuse' answers a 400 on it
   * (saving a schedule or a workflow node).
   */
  unasked: 'ignore' | 'refuse';
  /** 'refuse' lets through a value equal to the template's own, as AWX's _accept_or_ignore_job_kwargs does (workflow nodes). */
  templateValuesPass?: boolean;
  /** The person whose values these are: each object named must be one he may use. Saved values were checked when saved. */
  user?: RequestContext;
  /** Values given for this launch, read as the template's fields read them (400 with their messages). Saved ones were read when saved. */
  parse?: boolean;
  /** Variables taken without ask_variables_on_launch: a webhook's, an event rule's, those a workflow passes its nodes (AWX). */
  takeVariables?: boolean;
}

export interface AcceptedPrompts {
  /** The prompts taken, by field: values as parsed, objects as ids. */
  values: Record<string, unknown>;
  /** The variables taken, which a run's extra vars merge over the template's (templateExtraVars). */
  variables: Record<string, unknown>;
  /** What the template does not let the launch choose, reported as AWX does (ignored_fields). */
  ignored: Record<string, unknown>;
}

const given = (value: unknown) => value !== undefined && value !== null;

/** AWX: a prompt equal to the template's own value is no prompt at all. */
const sameAsTemplate = (spec: PromptSpec, template: Row, value: unknown) => spec.shape === 'column' && template[spec.column!] === value;

const surveyVariables = (template: Row) => new Set((activeSurvey(template)?.spec ?? []).map((q) => q.variable));

/** A launch body's prompts: a JSON object, or none. */
export function promptsInBody(body: unknown): Record<string, unknown> {
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) throw new ValidationError({ __all__: ['Expected a JSON object.'] });
  return (body ?? {}) as Record<string, unknown>;
}

/** The prompts a saved launch configuration holds: a schedule's or a workflow node's columns, its linked objects, its extra_data. */
export function savedPrompts(facet: TemplateFacet | undefined, row: Row, links: Record<string, readonly number[]> = {}): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const spec of facet?.prompts ?? []) {
    if (spec.shape === 'column' && given(row[spec.column!])) values[spec.field] = row[spec.column!];
    if (spec.shape === 'objects' && links[spec.field]?.length) values[spec.field] = links[spec.field];
    if (spec.shape === 'variables' && row.extra_data && Object.keys(row.extra_data).length) values[spec.field] = row.extra_data;
  }
  return values;
}

/** The run's (or saved configuration's) columns of the prompts taken. */
export function promptColumns(facet: TemplateFacet, values: Record<string, unknown>): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  for (const spec of facet.prompts) if (spec.shape === 'column' && spec.field in values) columns[spec.column!] = values[spec.field];
  return columns;
}

function readVariables(value: unknown, parse: boolean, field: string): Record<string, unknown> {
  if (!parse) return value as Record<string, unknown>;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const problem = variablesProblem(text);
  if (problem) throw ValidationError.field(field, problem);
  return parseVariables(text);
}

/**
 * The prompts of `given` (by launch field) that the template takes. A template kind with no
 * template facet takes none: each given is ignored, or refused with "Field is not allowed on launch.".
 * Refusals name the saved configuration's field for variables (extra_data), as AWX does.
 */
export async function acceptPrompts(
  tx: Queryable, facet: TemplateFacet | undefined, template: Row, input: Record<string, unknown>, options: AcceptOptions,
): Promise<AcceptedPrompts> {
  const values: Record<string, unknown> = {};
  const ignored: Record<string, unknown> = {};
  const errors: FieldErrors = {};
  let variables: Record<string, unknown> = {};
  const prompts = facet?.prompts ?? [];
  if (options.unasked === 'refuse') {
    for (const [field, value] of Object.entries(input)) {
      if (given(value) && !prompts.some((p) => p.field === field)) errors[field] = [facet ? NOT_PROMPTED : NOT_ALLOWED];
    }
  }
  for (const spec of prompts) {
    const value = input[spec.field];
    if (!given(value)) continue;
    if (spec.shape === 'variables') {
      const all = readVariables(value, options.parse === true, spec.field);
      if (options.takeVariables || asks(template, spec)) {
        variables = all;
        continue;
      }
      const survey = surveyVariables(template);
      variables = Object.fromEntries(Object.entries(all).filter(([k]) => survey.has(k)));
      const rest = Object.fromEntries(Object.entries(all).filter(([k]) => !survey.has(k)));
      if (options.unasked === 'ignore') {
        if (Object.keys(rest).length) ignored[spec.field] = rest;
        continue;
      }
      const own = parseVariables(template.extra_vars as string | null | undefined);
      const refused = Object.keys(rest).filter((k) => !options.templateValuesPass || JSON.stringify(own[k]) !== JSON.stringify(rest[k]));
      if (refused.length) {
        errors.extra_data = [`Variables ${refused.join(', ')} are not allowed on launch. Check the Prompt on Launch setting on the ${facet!.title} to include Extra Variables.`];
      }
      continue;
    }
    if (!asks(template, spec)) {
      if (options.unasked === 'ignore') ignored[spec.field] = value;
      else if (!options.templateValuesPass || !sameAsTemplate(spec, template, value)) errors[spec.field] = [NOT_PROMPTED];
      continue;
    }
    if (!options.parse || !spec.parse) values[spec.field] = value;
    else {
      try {
        values[spec.field] = spec.parse(value, options.user!);
      } catch (err) {
        if (!(err instanceof FieldProblem)) throw err;
        errors[spec.field] = [err.message];
      }
    }
  }
  if (Object.keys(errors).length) throw new ValidationError(errors);
  if (options.user) {
    for (const spec of prompts) {
      if (spec.use && spec.field in values) values[spec.field] = await spec.use(options.user, tx, values[spec.field]);
    }
  }
  await checkTenantOfPrompts(tx, prompts, template, values);
  return { values, variables, ignored };
}

/** Every trigger's prompts name objects of the template's tenant or global ones (docs/tenants.md, "Isolation"). */
async function checkTenantOfPrompts(tx: Queryable, prompts: readonly PromptSpec[], template: Row, values: Record<string, unknown>): Promise<void> {
  const owner = (template.organization_id as number | null | undefined) ?? null;
  const named = prompts.filter((spec) => spec.names && given(values[spec.field])).map((spec) => ({
    field: spec.field,
    resource: spec.names!,
    ids: (Array.isArray(values[spec.field]) ? values[spec.field] : [values[spec.field]]) as number[],
  }));
  const errors = await tenantPromptErrors(tx, owner, named);
  if (Object.keys(errors).length) throw new ValidationError(errors);
}
