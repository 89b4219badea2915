/** The credentials and labels of a job template: what may be attached and by whom. */
import { ValidationError } from '../../api/errors.ts';
import { joinTable, type Relation } from '../../api/relations.ts';
import type { Queryable } from '../../db/database.ts';
import { attachedLabels } from '../labels/attached-labels.ts';
import { assertCanUseCredential } from '../credentials/credential-use.ts';
import { assertTemplateAdmin } from './job-template-access.ts';

/** The ids of a template's credentials, in id order. */
export const templateCredentialIds = async (db: Queryable, templateId: number): Promise<number[]> =>
  (await db.query<{ credential_id: number }>('SELECT credential_id FROM job_template_credentials WHERE job_template_id = $1 ORDER BY credential_id', [templateId]))
    .map((r) => r.credential_id);

/** Credential kinds a playbook run can use (source control, registry and token credentials cannot). */
export const RUN_CREDENTIAL_KINDS = ['ssh', 'vault', 'net', 'cloud', 'kubernetes', 'insights'];

interface CredentialInfo {
  id: number;
  credential_type_id: number;
  kind: string;
  vault_id: string;
}

const credentialInfo = (tx: Queryable, where: string, param: number) =>
  tx.query<CredentialInfo>(
    `SELECT c.id, c.credential_type_id, t.kind, COALESCE(c.inputs->>'vault_id', '') AS vault_id
     FROM credentials c JOIN credential_types t ON t.id = c.credential_type_id WHERE ${where}`,
    [param],
  );

/** At most one credential per type, except vault credentials with distinct vault ids (400 otherwise). */
export async function assertCredentialFits(tx: Queryable, templateId: number, credentialId: number): Promise<void> {
  const [added] = await credentialInfo(tx, 'c.id = $1', credentialId);
  const attached = await credentialInfo(tx, 'c.id IN (SELECT credential_id FROM job_template_credentials WHERE job_template_id = $1)', templateId);
  for (const other of attached) {
    if (other.id === added.id || other.credential_type_id !== added.credential_type_id) continue;
    if (added.kind !== 'vault') throw ValidationError.field('credentials', `Cannot assign multiple ${added.kind} credentials.`);
    if (other.vault_id === added.vault_id) {
      throw ValidationError.field('credentials', `Cannot assign multiple vault credentials with the same vault id${added.vault_id ? ` "${added.vault_id}"` : ''}.`);
    }
  }
}

export function templateCredentials(): Relation {
  return {
    ...joinTable('credential', 'job_template_credentials', 'job_template_id', 'credential_id'),
    async authorize(ctx, tx, templateId, credentialId, detach) {
      await assertTemplateAdmin(ctx, tx, templateId);
      if (detach) return;
      await assertCanUseCredential(ctx, tx, credentialId, 'credentials', RUN_CREDENTIAL_KINDS);
      await assertCredentialFits(tx, templateId, credentialId);
    },
  };
}

export function templateLabels(): Relation {
  return attachedLabels({ name: 'job_template', table: 'job_template_labels', column: 'job_template_id', assertAdmin: assertTemplateAdmin });
}
