/** Who may relaunch a job (AWX's JobAccess.can_start), asked by the relaunch route and by the relaunch itself. */
import type { RequestContext } from '../../api/context.ts';
import { hasObjectRole, isSuperuser } from '../../api/access.ts';
import { forbidden } from '../../api/errors.ts';
import type { Queryable } from '../../db/database.ts';
import type { JobRow, JobTemplateRow } from '../../db/tables.ts';
import { mayExecute } from '../../resources/job-templates/job-template-access.ts';
import { templateCredentialIds } from '../../resources/job-templates/template-relations.ts';

export const jobCredentialIds = async (db: Queryable, jobId: number): Promise<number[]> =>
  (await db.query<{ credential_id: number }>('SELECT credential_id FROM unified_job_credentials WHERE unified_job_id = $1 ORDER BY credential_id', [jobId]))
    .map((r) => r.credential_id);

/**
 * Whether the caller may start the job again (AWX's JobAccess.can_start): execute on the template,
 * and use of the inventory and credentials the job ran with where they differ from the template's.
 */
export async function assertMayRelaunch(ctx: RequestContext, tx: Queryable, job: JobRow, template: JobTemplateRow, credentialIds: number[]): Promise<void> {
  if (isSuperuser(ctx)) return;
  if (!(await mayExecute(ctx, tx, template.id))) throw forbidden();
  // A job whose inventory was deleted (null) is no one's to use.
  if (job.inventory_id !== template.inventory_id && (job.inventory_id === null || !(await hasObjectRole(ctx, tx, 'inventory', job.inventory_id, 'use_role')))) {
    throw forbidden('You do not have permission to use the inventory this job ran with.');
  }
  const templateCredentials = new Set(await templateCredentialIds(tx, template.id));
  for (const id of credentialIds) {
    if (!templateCredentials.has(id) && !(await hasObjectRole(ctx, tx, 'credential', id, 'use_role'))) {
      throw forbidden('You do not have permission to use the credentials this job ran with.');
    }
  }
}

/** The `relaunch` action of jobs. A job whose template was deleted is left to the relaunch's own 400. */
export async function mayRelaunch(ctx: RequestContext, tx: Queryable, job: JobRow): Promise<boolean> {
  if (isSuperuser(ctx) || !job.job_template_id) return true;
  const [template] = await tx.query<JobTemplateRow>('SELECT * FROM job_templates WHERE id = $1', [job.job_template_id]);
  if (template) await assertMayRelaunch(ctx, tx, job, template, await jobCredentialIds(tx, job.id));
  return true;
}
