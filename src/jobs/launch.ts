import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../api/context.ts';
import { hasObjectRole } from '../api/access.ts';
import { forbidden, ValidationError } from '../api/errors.ts';
import { loadRow } from '../api/crud.ts';
import { getResource } from '../api/resource.ts';
import { visibleObject } from '../api/resource-routes.ts';
import { serializeRow } from '../api/serialize.ts';
import type { Queryable, Row } from '../db/database.ts';
import { wakeDispatcherSoon } from '../dispatcher/dispatcher.ts';
import { createUnifiedJob } from '../dispatcher/unified-jobs.ts';
import { parseVariables } from '../inventory/variables.ts';
import { assertCanUseCredential } from '../resources/credentials/credential-use.ts';
import { mayExecute } from '../resources/job-templates/job-template-access.ts';
import { maxForks } from '../resources/job-templates/job-template-hooks.ts';
import { activeSurvey } from '../resources/job-templates/launch-description.ts';
import { passwordPurpose, passwordVariables, validateSurveyAnswers } from '../resources/job-templates/survey-spec.ts';
import { encryptSecret } from '../secrets/encryption.ts';
import { checkPromptValues, readPrompts } from './launch-prompts.ts';

const DEFAULT_FORKS = 5;

/** AWX's task impact: one fork per host up to the forks, plus one for the control process. */
async function taskImpact(tx: Queryable, inventoryId: number, forks: number): Promise<number> {
  const [{ hosts }] = await tx.query<{ hosts: number }>('SELECT count(*)::int AS hosts FROM hosts WHERE inventory_id = $1 AND enabled', [inventoryId]);
  return Math.min(hosts, forks > 0 ? forks : DEFAULT_FORKS) + 1;
}

/** The credentials a launch runs with: the prompted ones (each usable by the caller) or the template's. */
async function launchCredentials(tx: Queryable, request: FastifyRequest, template: Row, prompted: unknown): Promise<number[]> {
  if (Array.isArray(prompted)) {
    for (const id of prompted as number[]) await assertCanUseCredential(request.ctx, tx, id, 'credentials');
    return prompted as number[];
  }
  return (await tx.query<{ credential_id: number }>('SELECT credential_id FROM job_template_credentials WHERE job_template_id = $1', [template.id])).map((r) => r.credential_id);
}

/**
 * POST /job_templates/{id}/launch/: checks the prompts and survey answers, creates the job
 * (pending; the dispatcher runs it) and answers 201 with it and the ignored prompts.
 */
export async function launchJobTemplate(services: Services, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const { db } = services;
  const jobTemplates = getResource('job_template');
  const visible = await visibleObject(services, request, jobTemplates);
  if (!(await mayExecute(request.ctx, db, visible.id))) throw forbidden();
  const survey = activeSurvey(visible);
  const prompts = readPrompts(visible, request.body, (survey?.spec ?? []).map((q) => q.variable));
  checkPromptValues(prompts.accepted, maxForks());
  const job = await db.transaction(async (tx) => {
    const template = await loadRow(tx, jobTemplates, visible.id);
    const inventoryId = (prompts.accepted.inventory as number | undefined) ?? template.inventory_id;
    if (!inventoryId) throw ValidationError.field('inventory', "Job Template 'inventory' is missing or undefined.");
    if (prompts.accepted.inventory !== undefined && !(await hasObjectRole(request.ctx, tx, 'inventory', inventoryId, 'use_role'))) {
      throw forbidden('You do not have permission to use this inventory.');
    }
    const extraVars: Record<string, unknown> = { ...parseVariables(template.extra_vars), ...prompts.extraVars };
    const surveyPasswords: Record<string, string> = {};
    if (survey) {
      const { values, errors } = validateSurveyAnswers(survey, prompts.extraVars);
      if (Object.keys(errors).length) throw new ValidationError({ variables_needed_to_start: Object.values(errors).flat() });
      Object.assign(extraVars, values);
      for (const variable of passwordVariables(survey)) {
        if (typeof extraVars[variable] !== 'string') continue;
        extraVars[variable] = encryptSecret(passwordPurpose(variable), extraVars[variable] as string);
        surveyPasswords[variable] = '$encrypted$';
      }
    }
    const value = (field: string, column = field) => (prompts.accepted[field] !== undefined ? prompts.accepted[field] : template[column]);
    const forks = value('forks') as number;
    const created = await createUnifiedJob(tx, request.ctx, {
      kind: 'job',
      name: template.name,
      description: template.description,
      unified_job_template_id: template.id,
      job_template_id: template.id,
      launch_type: 'manual',
      organization_id: template.organization_id,
      project_id: template.project_id,
      inventory_id: inventoryId,
      playbook: template.playbook,
      job_type: value('job_type'),
      scm_branch: value('scm_branch'),
      forks,
      limit: value('limit'),
      verbosity: value('verbosity'),
      job_tags: value('job_tags'),
      skip_tags: value('skip_tags'),
      start_at_task: template.start_at_task,
      timeout: value('timeout'),
      diff_mode: value('diff_mode'),
      job_slice_count: value('job_slice_count'),
      execution_environment_id: value('execution_environment', 'execution_environment_id'),
      extra_vars: JSON.stringify(extraVars),
      survey_passwords: JSON.stringify(surveyPasswords),
      use_fact_cache: template.use_fact_cache,
      become_enabled: template.become_enabled,
      allow_simultaneous: template.allow_simultaneous,
      task_impact: await taskImpact(tx, inventoryId, forks),
    });
    for (const credential of await launchCredentials(tx, request, template, prompts.accepted.credentials)) {
      await tx.query('INSERT INTO unified_job_credentials (unified_job_id, credential_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [created.id, credential]);
    }
    return created;
  });
  wakeDispatcherSoon();
  const body = await serializeRow(db, request.ctx, getResource('job'), job);
  return reply.code(201).send({ job: job.id, ignored_fields: prompts.ignored, ...body });
}
