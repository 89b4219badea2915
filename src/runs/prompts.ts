/**
 * What a template lets the one who launches it choose (AWX's ask_*_on_launch): one PromptSpec per
 * promptable field, declared once by the run kind (RunKind.template) and read by every way of
 * launching it: launch/, schedules, workflow nodes, webhooks and event rules, through acceptPrompts
 * (docs/architecture.md, "Launch prompts").
 */
import type { RequestContext } from '../api/context.ts';
import type { Queryable, Row } from '../db/database.ts';

/**
 * How a prompt's value is held and merged: one column of the template, its runs, schedules and
 * workflow nodes (inventory_id, limit...); a list of related objects replacing the template's
 * (credentials, labels, instance groups); or variables merged over the template's (extra_vars).
 */
export type PromptShape = 'column' | 'objects' | 'variables';

export interface PromptSpec {
  /** The launch field, as AWX names it (inventory, credentials, job_tags, extra_vars...). */
  field: string;
  /** The flag allowing it: `tags` for ask_tags_on_launch. */
  flag: string;
  shape: PromptShape;
  /** The column holding a 'column' prompt, the same on templates, runs, schedules and nodes. */
  column?: string;
  /** A value a person gives, read as the template's own field reads it: throws FieldProblem with AWX's message. */
  parse?(value: unknown, ctx: RequestContext): unknown;
  /**
   * Refuses objects the person may not use (403, or 400 when one does not exist), answering the
   * value to keep (ids in order, without repeats). Not asked for the template's own value.
   */
  use?(ctx: RequestContext, tx: Queryable, value: unknown): Promise<unknown>;
  /** The resource whose objects the prompt names (inventory, credential...): they must be of the template's tenant (docs/tenants.md). */
  names?: string;
  /** A workflow job's value of this field reaches the templates of its nodes that ask for it (AWX: not labels). */
  passesDown?: boolean;
}

/** A run kind's templates: their table and what a launch of one may choose. */
export interface TemplateFacet {
  table: string;
  /** How AWX names the template in messages ("Job Template"). */
  title: string;
  prompts: readonly PromptSpec[];
}

/** Whether the template asks for the prompt at launch. */
export const asks = (template: Row, spec: Pick<PromptSpec, 'flag'>): boolean => template[`ask_${spec.flag}_on_launch`] === true;

/** The ask_*_on_launch flags of the prompts, with the template's value of each. */
export const askFlags = (prompts: readonly PromptSpec[], template: Row): Record<string, boolean> =>
  Object.fromEntries(prompts.map((p) => [`ask_${p.flag}_on_launch`, asks(template, p)]));
