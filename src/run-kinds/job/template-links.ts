/** What a job takes from its template unless its launch chooses otherwise: the template's credentials and labels. */
import type { Queryable } from '../../db/database.ts';
import { passwordsNeeded } from '../../ansible/credential-passwords.ts';

export interface TemplateLinks {
  /** The template's credentials, in id order. */
  credentialIds: number[];
  /** The passwords those credentials need at launch, in credential order (as passwordsNeededFor answers). */
  passwordsNeeded: string[];
  /** The template's labels, in id order. */
  labelIds: number[];
}

/** A template's credentials, with the passwords they need at launch, and its labels: one query for a launch. */
export async function templateLinks(tx: Queryable, templateId: number): Promise<TemplateLinks> {
  const rows = await tx.query<{ link: 'credential' | 'label'; id: number; kind: string | null; inputs: Record<string, unknown> | null }>(
    `SELECT 'credential' AS link, c.id, t.kind, c.inputs FROM job_template_credentials l
       JOIN credentials c ON c.id = l.credential_id JOIN credential_types t ON t.id = c.credential_type_id
      WHERE l.job_template_id = $1
     UNION ALL
     SELECT 'label', label_id, NULL, NULL FROM job_template_labels WHERE job_template_id = $1
     ORDER BY link, id`,
    [templateId],
  );
  const credentials = rows.filter((r) => r.link === 'credential');
  return {
    credentialIds: credentials.map((r) => r.id),
    passwordsNeeded: credentials.flatMap((r) => passwordsNeeded(r.kind ?? '', r.inputs ?? {})),
    labelIds: rows.filter((r) => r.link === 'label').map((r) => r.id),
  };
}
