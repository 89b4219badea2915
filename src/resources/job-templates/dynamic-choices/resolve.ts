/**
 * Resolves the dynamic questions of a template's survey for one caller: each answer from the cache
 * or its source, a failing source answering no choices and its error (never cached).
 */
import { seesEverything } from '../../../api/access.ts';
import type { RequestContext } from '../../../api/context.ts';
import type { ChoicesRequest } from './choices-schemas.ts';
import { ValidationError } from '../../../api/errors.ts';
import type { Queryable, Row } from '../../../db/database.ts';
import type { SurveySpec } from '../survey-spec.ts';
import { endpointChoices } from './api-endpoint.ts';
import { cacheKey, type ChoiceCache } from './choice-cache.ts';
import { SourceError } from './choices.ts';
import { queryChoices, usesTemplateInventory } from './db-query.ts';
import { jinjaChoices } from './jinja-source.ts';
import { DEFAULT_CACHE_TTL, dynamicSource, type DynamicChoices, type SourceType } from './source-spec.ts';

export interface ResolvedChoices {
  choices: string[];
  source_type: SourceType;
  error?: string;
}

export interface ResolveRequest {
  db: Queryable;
  ctx: RequestContext;
  /** The job or workflow job template (its inventory_id and survey_spec). */
  template: Row;
  cache: ChoiceCache;
  /** Told of a failure that is not the source's own (a bug, the database): the caller still gets an error for that variable. */
  onUnexpected?: (variable: string, err: unknown) => void;
}

/**
 * What besides the configuration an answer depends on: the template's inventory for the sources
 * that read it, and, for db_query, who asks (what each user may read differs; users who see
 * everything share one answer).
 */
function scopeOf(d: DynamicChoices, ctx: RequestContext, template: Row): string {
  const inventory = `inventory:${template.inventory_id ?? 'none'}`;
  if (d.source_type === 'jinja2') return inventory;
  if (d.source_type === 'api_endpoint') return '';
  const reader = seesEverything(ctx) ? 'everything' : `user:${ctx.user?.id ?? 0}`;
  return usesTemplateInventory(d) ? `${reader} ${inventory}` : reader;
}

function fetchChoices(request: ResolveRequest, variable: string, d: DynamicChoices): Promise<string[]> {
  switch (d.source_type) {
    case 'db_query': return queryChoices(request.db, request.ctx, request.template, d);
    case 'api_endpoint': return endpointChoices(request.ctx, variable, d);
    case 'jinja2': return jinjaChoices(request.db, request.template, d);
  }
}

async function resolveOne(request: ResolveRequest, variable: string, d: DynamicChoices): Promise<ResolvedChoices> {
  const key = cacheKey(variable, d, scopeOf(d, request.ctx, request.template));
  const cached = request.cache.get(key);
  if (cached) return { choices: cached, source_type: d.source_type };
  try {
    const choices = await fetchChoices(request, variable, d);
    request.cache.set(key, choices, (d.cache_ttl as number | undefined) ?? DEFAULT_CACHE_TTL);
    return { choices, source_type: d.source_type };
  } catch (err) {
    if (!(err instanceof SourceError)) request.onUnexpected?.(variable, err);
    return { choices: [], source_type: d.source_type, error: err instanceof SourceError ? err.message : 'The source failed.' };
  }
}

/** The variables a request body asks for: its `variables`, else every dynamic question. 400 for one that is not a dynamic question. */
export function askedVariables(spec: SurveySpec | null | undefined, body: ChoicesRequest): Map<string, DynamicChoices> {
  const given = body.variables;
  const questions = spec?.spec ?? [];
  const dynamic = new Map(questions.flatMap((q) => {
    const d = dynamicSource(q);
    return d ? [[q.variable, d] as const] : [];
  }));
  if (given === undefined || given === null) return dynamic;
  const asked = new Map<string, DynamicChoices>();
  for (const variable of given) {
    const d = dynamic.get(variable);
    if (d) asked.set(variable, d);
    else if (questions.some((q) => q.variable === variable)) throw ValidationError.field('variables', `Survey question '${variable}' has no dynamic choices.`);
    else throw ValidationError.field('variables', `'${variable.slice(0, 100)}' is not a variable of the survey.`);
  }
  return asked;
}

export async function resolveChoices(request: ResolveRequest, asked: Map<string, DynamicChoices>): Promise<Record<string, ResolvedChoices>> {
  const entries = await Promise.all([...asked].map(async ([variable, d]) => [variable, await resolveOne(request, variable, d)] as const));
  return Object.fromEntries(entries);
}
