/** Relaunching a job: a new job from the same template with what the original ran with (AWX's JobRelaunch). */
import type { RequestContext } from '../../api/context.ts';
import type { Static } from 'typebox';
import { ValidationError } from '../../api/errors.ts';
import type { Queryable } from '../../db/database.ts';
import type { JobRow, JobTemplateRow } from '../../db/tables.ts';
import { ACTIVE_STATUSES } from '../../runs/lifecycle.ts';
import { parseVariables } from '../../inventory/variables.ts';
import { assertMayRelaunch, jobCredentialIds } from './relaunch-access.ts';
import { jobPlan, JOB, TEMPLATE_COLUMNS } from './create-job.ts';
import { jobInventoryIds } from '../../resources/job-templates/template-inventories.ts';
import type { Launcher, RunPlan } from '../../runs/launch.ts';
import { passwordsNeededFor, readCredentialPasswords } from '../../ansible/credential-passwords.ts';
import { optionValueErrors, PLAYBOOK_OPTION_FIELDS } from '../../ansible/option-values.ts';
import type { RelaunchBody } from './job-schemas.ts';

const FAILED_HOSTS = 'failures > 0 OR dark > 0';

const isActive = (job: Pick<JobRow, 'status'>) => (ACTIVE_STATUSES as readonly string[]).includes(job.status);

/** GET /jobs/{id}/relaunch/: the passwords a relaunch needs and how many hosts each choice of `hosts` would run on. */
export async function describeRelaunch(db: Queryable, job: JobRow): Promise<Record<string, unknown>> {
  let retryCounts: unknown = 'Relaunch by host status not available until job finishes running.';
  if (!isActive(job)) {
    const [counts] = await db.query<{ all: number; failed: number }>(
      `SELECT count(*)::int AS all, (count(*) FILTER (WHERE ${FAILED_HOSTS}))::int AS failed FROM job_host_summaries WHERE job_id = $1`,
      [job.id],
    );
    retryCounts = counts;
  }
  return { passwords_needed_to_start: await passwordsNeededFor(db, await jobCredentialIds(db, job.id)), retry_counts: retryCounts };
}

/** The limit of a relaunch on failed hosts: the failed and unreachable hosts of the original run. */
async function failedHostsLimit(tx: Queryable, job: JobRow): Promise<string> {
  if (isActive(job)) throw ValidationError.field('hosts', 'Wait until job finishes before retrying on failed hosts.');
  const rows = await tx.query<{ host_name: string; failed: boolean }>(
    `SELECT host_name, (${FAILED_HOSTS}) AS failed FROM job_host_summaries WHERE job_id = $1 ORDER BY host_name`,
    [job.id],
  );
  if (!rows.length) throw ValidationError.field('hosts', 'Cannot retry on failed hosts, playbook stats not available.');
  const failed = rows.filter((r) => r.failed).map((r) => r.host_name);
  if (!failed.length) throw ValidationError.field('hosts', 'Cannot relaunch because previous job had 0 failed hosts.');
  return failed.join(',');
}

/** A relaunch of `job` (POST /jobs/{id}/relaunch/ {hosts, credential_passwords}). */
export const relaunchLauncher: Launcher<{ job: JobRow; body: Static<typeof RelaunchBody> }, JobTemplateRow> = {
  kind: JOB,
  plan: (tx, ctx, _template, { job, body }) => relaunchPlan(tx, ctx, job, body),
};

async function relaunchPlan(tx: Queryable, ctx: RequestContext, job: JobRow, body: Static<typeof RelaunchBody>): Promise<RunPlan<JobTemplateRow>> {
  const [template] = job.job_template_id ? await tx.query<JobTemplateRow>('SELECT * FROM job_templates WHERE id = $1', [job.job_template_id]) : [];
  if (!template) throw ValidationError.field('job_template', 'The job template of this job has been deleted, so the job cannot be relaunched.');
  const credentialIds = await jobCredentialIds(tx, job.id);
  await assertMayRelaunch(ctx, tx, job, template, credentialIds);
  if (!job.project_id) throw ValidationError.field('project', 'Job Template Project is missing or undefined.');
  if (!job.inventory_id) throw ValidationError.field('inventory', 'Job Template Inventory is missing or undefined.');
  const limit = body.hosts === 'failed' ? await failedHostsLimit(tx, job) : job.limit;
  // Values stored before these checks, and failed hosts' names, become options of the new run.
  const optionErrors = optionValueErrors({ ...job, limit }, PLAYBOOK_OPTION_FIELDS);
  if (Object.keys(optionErrors).length) throw new ValidationError(optionErrors);
  const { passwords, missing } = readCredentialPasswords(await passwordsNeededFor(tx, credentialIds), body.credential_passwords);
  if (missing.length) throw ValidationError.field('credential_passwords', `Missing passwords needed to start: ${missing.join(', ')}`);
  const labels = await tx.query<{ label_id: number }>('SELECT label_id FROM job_labels WHERE job_id = $1 ORDER BY label_id', [job.id]);
  const groups = await tx.query<{ instance_group_id: number }>(
    'SELECT instance_group_id FROM unified_job_instance_groups WHERE unified_job_id = $1 ORDER BY position',
    [job.id],
  );
  const plan = await jobPlan(tx, {
    template: { ...template, name: job.name },
    launchType: 'relaunch',
    inventoryId: job.inventory_id,
    extraInventoryIds: await jobInventoryIds(tx, job.id),
    // The original job's own values of every column a template gives, rather than the template's current ones.
    // A webhook job's relaunch keeps its webhook fields (AWX), so it reports its commit status too.
    values: {
      ...Object.fromEntries(TEMPLATE_COLUMNS.map((c) => [c, job[c]])), limit,
      webhook_service: job.webhook_service, webhook_credential_id: job.webhook_credential_id, webhook_guid: job.webhook_guid,
    },
    // Survey password answers stay encrypted as the original stored them.
    extraVars: parseVariables(job.extra_vars),
    surveyPasswords: (job.survey_passwords ?? {}) as Record<string, string>,
    credentialIds,
    credentialPasswords: passwords,
    labelIds: labels.map((r) => r.label_id),
    instanceGroupIds: groups.map((r) => r.instance_group_id),
  });
  return { ...plan, template };
}
