/** Who may relaunch a job (AWX's JobAccess.can_start), asked by the relaunch route and by the relaunch itself. */
import type { RequestContext } from '../../api/context.ts';
import { hasObjectRole, isSuperuser } from '../../api/access.ts';
import { forbidden } from '../../api/errors.ts';
import { readTogether, type Queryable } from '../../db/database.ts';
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
  const otherInventory = job.inventory_id !== template.inventory_id;
  // Read together, answered in this order.
  const [executes, usesInventory, templateCredentials] = await readTogether(tx, [
    () => mayExecute(ctx, tx, template.id),
    // A job whose inventory was deleted (null) is no one's to use.
    async () => !otherInventory || (job.inventory_id !== null && hasObjectRole(ctx, tx, 'inventory', job.inventory_id, 'use_role')),
    () => templateCredentialIds(tx, template.id),
  ] as const);
  if (!executes) throw forbidden();
  if (!usesInventory) throw forbidden('You do not have permission to use the inventory this job ran with.');
  const own = new Set(templateCredentials);
  const uses = await readTogether(tx, credentialIds.filter((id) => !own.has(id)).map((id) => () => hasObjectRole(ctx, tx, 'credential', id, 'use_role')));
  if (uses.includes(false)) throw forbidden('You do not have permission to use the credentials this job ran with.');
}

/** The `relaunch` action of jobs. A job whose template was deleted is left to the relaunch's own 400. */
export async function mayRelaunch(ctx: RequestContext, tx: Queryable, job: JobRow): Promise<boolean> {
  if (isSuperuser(ctx) || !job.job_template_id) return true;
  const [[template], credentialIds] = await readTogether(tx, [
    () => tx.query<JobTemplateRow>('SELECT * FROM job_templates WHERE id = $1', [job.job_template_id]),
    () => jobCredentialIds(tx, job.id),
  ] as const);
  if (template) await assertMayRelaunch(ctx, tx, job, template, credentialIds);
  return true;
}
