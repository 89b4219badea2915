/**
 * Provisioning callbacks (AWX's JobTemplateCallback): a host that knows the template's
 * host_config_key asks for the template to run on itself. The key is the authentication.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError, forbidden, ValidationError } from '../../api/errors.ts';
import type { Queryable } from '../../db/database.ts';
import type { JobTemplateRow } from '../../db/tables.ts';
import { ACTIVE_STATUSES } from '../../runs/lifecycle.ts';
import { parseVariables, variablesProblem } from '../../inventory/variables.ts';
import { activeSurvey } from '../../resources/job-templates/launch-description.ts';
import { variablesNeeded } from '../../resources/job-templates/survey-spec.ts';
import { matchingHosts } from './callback-hosts.ts';
import { templateCredentialIds } from '../../resources/job-templates/template-relations.ts';
import { JOB, jobPlan, templateLabelIds } from './create-job.ts';
import type { Launcher, RunPlan } from '../../runs/launch.ts';
import { passwordsNeededFor } from '../../ansible/credential-passwords.ts';

import { optionValueErrors } from '../../ansible/option-values.ts';
import { templateExtraVars } from '../../resources/job-templates/survey-variables.ts';
import { acceptPrompts } from '../../runs/accept-prompts.ts';
import { askFlags } from '../../runs/prompts.ts';
import { JOB_TEMPLATE_FACET, JOB_TEMPLATE_PROMPTS } from './prompts.ts';

const refuse = (msg: string) => new ApiError(400, { msg });

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** 403 unless the template has a host_config_key and `given` is it (compared in constant time). */
export function assertHostConfigKey(template: Pick<JobTemplateRow, 'host_config_key'>, given: unknown): void {
  const key = typeof template.host_config_key === 'string' ? template.host_config_key : '';
  if (!key || typeof given !== 'string' || !given || !timingSafeEqual(digest(key), digest(given))) throw forbidden();
}

/** The callback body's extra_vars (JSON bodies only, as AWX), or undefined when none were sent. */
export function callbackExtraVars(body: Record<string, unknown>, isJson: boolean): Record<string, unknown> | undefined {
  if (!isJson || body.extra_vars === undefined || body.extra_vars === null) return undefined;
  const text = typeof body.extra_vars === 'string' ? body.extra_vars : JSON.stringify(body.extra_vars);
  const problem = variablesProblem(text);
  if (problem) throw new ApiError(400, { extra_vars: [problem] });
  return parseVariables(text);
}

/** AWX's can_start_without_user_input for a callback: no passwords, no unanswered survey question, no prompt unless extra vars came. */
async function needsUserInput(tx: Queryable, template: JobTemplateRow, credentialIds: number[], extraVars: Record<string, unknown> | undefined): Promise<boolean> {
  if ((await passwordsNeededFor(tx, credentialIds)).length) return true;
  const survey = activeSurvey(template);
  const needed = survey ? variablesNeeded(survey) : [];
  if (needed.some((name) => extraVars === undefined || !(name in extraVars))) return true;
  return extraVars === undefined && Object.values(askFlags(JOB_TEMPLATE_PROMPTS, template)).some(Boolean);
}

export interface CallbackInput {
  /** The names the calling host may go by (its address and reverse lookups). */
  remote: Set<string>;
  extraVars: Record<string, unknown> | undefined;
}

/** The callback job for the calling host: 400 {msg} when AWX would refuse. The key was checked before. */
export const callbackLauncher: Launcher<CallbackInput, Pick<JobTemplateRow, 'id'>> = {
  kind: JOB,
  plan: async (tx, _ctx, found, input) => {
    // Locked so that two callbacks of one host cannot both pass the pending check.
    const [template] = await tx.query<JobTemplateRow>('SELECT * FROM job_templates WHERE id = $1 FOR UPDATE', [found!.id]);
    return { ...(await callbackPlan(tx, template, input)), template };
  },
};

async function callbackPlan(tx: Queryable, template: JobTemplateRow, { remote, extraVars }: CallbackInput): Promise<RunPlan<JobTemplateRow>> {
  const hosts = template.inventory_id ? await matchingHosts(tx, template.inventory_id, remote) : [];
  if (!hosts.length) throw refuse('No matching host could be found!');
  if (hosts.length > 1) throw refuse('Multiple hosts matched the request!');
  const credentialIds = await templateCredentialIds(tx, template.id);
  if (await needsUserInput(tx, template, credentialIds, extraVars)) throw refuse('Cannot start automatically, user input required!');
  const limit = hosts[0].name;
  const limitErrors = optionValueErrors({ limit }, { limit: 'pattern' });
  if (limitErrors.limit) throw new ValidationError(limitErrors);
  const pending = await tx.query(
    'SELECT 1 FROM unified_jobs WHERE kind = $1 AND job_template_id = $2 AND "limit" = $3 AND status = ANY($4::text[]) LIMIT 1',
    ['job', template.id, limit, [...ACTIVE_STATUSES]],
  );
  if (pending.length) throw refuse('Host callback job already pending.');
  // As at launch: extra vars need ask_variables_on_launch unless they answer the survey; never ansible_* ones (AWX).
  const offered = Object.fromEntries(Object.entries(extraVars ?? {}).filter(([name]) => !name.startsWith('ansible_')));
  const { variables } = await acceptPrompts(tx, JOB_TEMPLATE_FACET, template, { extra_vars: offered }, { unasked: 'ignore' });
  return jobPlan(tx, {
    template,
    launchType: 'callback',
    // Set: the host was found in it.
    inventoryId: template.inventory_id!,
    values: { limit, job_slice_count: 1 },
    ...templateExtraVars(template, variables),
    credentialIds,
    credentialPasswords: {},
    labelIds: await templateLabelIds(tx, template.id),
    instanceGroupIds: [],
  });
}
