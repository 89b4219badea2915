/** The credentials and labels of a job template: what may be attached and by whom. */
import { joinTable, type Relation } from '../../api/relations.ts';
import type { Queryable } from '../../db/database.ts';
import { attachedLabels } from '../labels/attached-labels.ts';
import { assertCanUseCredential } from '../credentials/credential-use.ts';
import { assertTemplateSlotFree } from '../credentials/one-per-type.ts';
import { assertTemplateAdmin } from './job-template-access.ts';

/** The ids of a template's credentials, in id order. */
export const templateCredentialIds = async (db: Queryable, templateId: number): Promise<number[]> =>
  (await db.query<{ credential_id: number }>('SELECT credential_id FROM job_template_credentials WHERE job_template_id = $1 ORDER BY credential_id', [templateId]))
    .map((r) => r.credential_id);

/** Credential kinds a playbook run can use (source control, registry and token credentials cannot). */
export const RUN_CREDENTIAL_KINDS = ['ssh', 'vault', 'net', 'cloud', 'kubernetes', 'insights'];

const TEMPLATE_CREDENTIALS = { table: 'job_template_credentials', column: 'job_template_id' };

export function templateCredentials(): Relation {
  return {
    ...joinTable('credential', 'job_template_credentials', 'job_template_id', 'credential_id'),
    // POST without an id creates a credential (it names its owner) and attaches it (AWX's JobTemplateCredentialsList).
    createAndLink: {},
    async authorize(ctx, tx, templateId, credentialId, detach) {
      await assertTemplateAdmin(ctx, tx, templateId);
      if (detach) return;
      await assertCanUseCredential(ctx, tx, credentialId, 'credentials', RUN_CREDENTIAL_KINDS);
      await assertTemplateSlotFree(tx, TEMPLATE_CREDENTIALS, templateId, credentialId);
    },
  };
}

export function templateLabels(): Relation {
  return attachedLabels({ name: 'job_template', table: 'job_template_labels', column: 'job_template_id', assertAdmin: assertTemplateAdmin });
}
