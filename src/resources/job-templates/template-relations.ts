/** The credentials and labels of a job template: what may be attached and by whom. */
import { recordActivity } from '../../activity/record.ts';
import { hasObjectRole } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { forbidden, ValidationError } from '../../api/errors.ts';
import { createObject } from '../../api/crud.ts';
import { getResource } from '../../api/resource.ts';
import { joinTable, type Relation } from '../../api/relations.ts';
import type { Queryable, Row } from '../../db/database.ts';
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

/** Labels are organization-wide: attaching one needs the template's admin_role and sight of the label's organization. */
async function assertMayLabel(ctx: RequestContext, tx: Queryable, templateId: number, labelId: number, detach: boolean): Promise<void> {
  await assertTemplateAdmin(ctx, tx, templateId);
  if (detach) return;
  const [label] = await tx.query('SELECT organization_id FROM labels WHERE id = $1', [labelId]);
  if (label && !(await hasObjectRole(ctx, tx, 'organization', label.organization_id, 'read_role'))) throw forbidden();
}

/** POST {name} on a template's labels: the organization's label of that name, created if missing, is attached. */
async function createLabel(tx: Queryable, ctx: RequestContext, template: Row, body: unknown): Promise<Row | null> {
  await assertTemplateAdmin(ctx, tx, template.id);
  const name = (body as Record<string, unknown>)?.name;
  if (typeof name !== 'string' || !name.trim()) throw ValidationError.field('name', 'This field is required.');
  if (template.organization_id === null) throw ValidationError.field('organization', 'The job template has no organization for its labels.');
  const [existing] = await tx.query('SELECT * FROM labels WHERE organization_id = $1 AND name = $2', [template.organization_id, name]);
  const labels = getResource('job_template').related.labels;
  if (existing) {
    if (await labels.attach!(tx, template.id, existing.id, ctx)) {
      await recordActivity(tx, ctx, { operation: 'associate', object1: 'job_template', object1Id: template.id, object2: 'label', object2Id: existing.id, association: 'labels', changes: {} });
    }
    return null;
  }
  const label = await createObject(tx, ctx, getResource('label'), { name, organization: template.organization_id });
  await labels.attach!(tx, template.id, label.id, ctx);
  await recordActivity(tx, ctx, { operation: 'associate', object1: 'job_template', object1Id: template.id, object2: 'label', object2Id: label.id, association: 'labels', changes: {} });
  return label;
}

export function templateLabels(): Relation {
  return { ...joinTable('label', 'job_template_labels', 'job_template_id', 'label_id'), authorize: assertMayLabel, create: createLabel };
}
