/** Copying a job template: its settings, credentials, labels, instance groups and survey (secrets carried as stored). */
import type { RequestContext } from '../../api/context.ts';
import { createObject } from '../../api/crud.ts';
import { copiedValues } from '../../api/copy-route.ts';
import type { Queryable } from '../../db/database.ts';
import type { JobTemplateRow } from '../../db/tables.ts';
import { assertCanUseCredential } from '../credentials/credential-use.ts';
import { jobTemplates } from './job-template.resource.ts';
import { RUN_CREDENTIAL_KINDS, templateCredentialIds } from './template-relations.ts';

/** Copies the template under `name` (checked by the copy/ route's body schema). */
export async function copyJobTemplate(tx: Queryable, ctx: RequestContext, template: JobTemplateRow, name: string): Promise<JobTemplateRow> {
  const copy = await createObject<JobTemplateRow>(tx, ctx, jobTemplates, { ...copiedValues(jobTemplates, template), name });
  for (const id of await templateCredentialIds(tx, template.id)) {
    await assertCanUseCredential(ctx, tx, id, 'credentials', RUN_CREDENTIAL_KINDS);
    await tx.query('INSERT INTO job_template_credentials (job_template_id, credential_id) VALUES ($1, $2)', [copy.id, id]);
  }
  await tx.query('INSERT INTO job_template_labels (job_template_id, label_id) SELECT $1, label_id FROM job_template_labels WHERE job_template_id = $2', [copy.id, template.id]);
  await tx.query(
    `INSERT INTO job_template_instance_groups (job_template_id, instance_group_id, position)
     SELECT $1, instance_group_id, position FROM job_template_instance_groups WHERE job_template_id = $2`,
    [copy.id, template.id],
  );
  // Password defaults are encrypted for their variable, not their template: the stored spec stays valid.
  const [row] = await tx.query<JobTemplateRow>('UPDATE job_templates SET survey_spec = $2::jsonb WHERE id = $1 RETURNING *', [copy.id, JSON.stringify(template.survey_spec ?? {})]);
  return row;
}
