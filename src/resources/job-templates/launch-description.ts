/** GET /job_templates/{id}/launch/: what a launch of the template needs and what it would use. */
import type { Queryable } from '../../db/database.ts';
import type { CredentialRow, JobTemplateRow } from '../../db/tables.ts';
import { ASK_FIELDS } from './job-template.resource.ts';
import { variablesNeeded, type SurveySpec } from './survey-spec.ts';
import { passwordsNeeded as credentialPasswordsNeeded } from '../../ansible/credential-passwords.ts';

/** What activeSurvey reads of a template (job and workflow job templates alike). */
export type SurveyTemplate = { survey_enabled?: unknown; survey_spec?: unknown };

export interface LaunchCredential {
  id: number;
  name: string;
  credential_type: number;
  passwords_needed: string[];
}

/** The inputs of a credential set to "ASK", as AWX names them at launch (a Machine credential unless `kind` says otherwise). */
export function passwordsNeeded(inputs: Record<string, unknown>, kind = 'ssh'): string[] {
  return credentialPasswordsNeeded(kind, inputs);
}

export async function launchCredentials(db: Queryable, templateId: number): Promise<LaunchCredential[]> {
  const rows = await db.query<Pick<CredentialRow, 'id' | 'name' | 'credential_type_id' | 'inputs'> & { kind: string }>(
    `SELECT c.id, c.name, c.credential_type_id, c.inputs, t.kind FROM job_template_credentials l
     JOIN credentials c ON c.id = l.credential_id JOIN credential_types t ON t.id = c.credential_type_id
     WHERE l.job_template_id = $1 ORDER BY c.id`,
    [templateId],
  );
  return rows.map((c) => ({ id: c.id, name: c.name, credential_type: c.credential_type_id, passwords_needed: passwordsNeeded((c.inputs ?? {}) as Record<string, unknown>, c.kind) }));
}

/** The survey of a template if it is enabled and has questions, else null. */
export function activeSurvey(template: SurveyTemplate): SurveySpec | null {
  const spec = template.survey_spec as SurveySpec | undefined;
  return template.survey_enabled && Array.isArray(spec?.spec) && spec.spec.length ? spec : null;
}

const nameAndId = async (db: Queryable, table: string, id: number | null) => {
  if (id === null) return {};
  const [row] = await db.query<{ id: number; name: string }>(`SELECT id, name FROM ${table} WHERE id = $1`, [id]);
  return row ? { name: row.name, id: row.id } : {};
};

export async function describeLaunch(db: Queryable, template: JobTemplateRow): Promise<Record<string, unknown>> {
  const credentials = await launchCredentials(db, template.id);
  const survey = activeSurvey(template);
  const variablesNeededToStart = survey ? variablesNeeded(survey) : [];
  const passwordsNeededToStart = credentials.flatMap((c) => c.passwords_needed);
  const asks = Object.fromEntries(ASK_FIELDS.map((name) => [`ask_${name}_on_launch`, template[`ask_${name}_on_launch` as keyof JobTemplateRow] === true]));
  const inventoryNeeded = template.inventory_id === null;
  const labels = await db.query<{ id: number; name: string }>('SELECT b.id, b.name FROM job_template_labels l JOIN labels b ON b.id = l.label_id WHERE l.job_template_id = $1 ORDER BY b.name', [template.id]);
  const instanceGroups = await db.query<{ id: number; name: string }>(
    `SELECT g.id, g.name FROM job_template_instance_groups l JOIN instance_groups g ON g.id = l.instance_group_id
     WHERE l.job_template_id = $1 ORDER BY l.position, g.id`,
    [template.id],
  );
  return {
    can_start_without_user_input:
      !Object.values(asks).some(Boolean) && !passwordsNeededToStart.length && !variablesNeededToStart.length && !inventoryNeeded,
    passwords_needed_to_start: passwordsNeededToStart,
    ...asks,
    survey_enabled: survey !== null,
    variables_needed_to_start: variablesNeededToStart,
    credential_needed_to_start: false,
    inventory_needed_to_start: inventoryNeeded,
    job_template_data: { name: template.name, id: template.id, description: template.description },
    defaults: {
      extra_vars: template.extra_vars,
      diff_mode: template.diff_mode,
      limit: template.limit,
      job_tags: template.job_tags,
      skip_tags: template.skip_tags,
      job_type: template.job_type,
      verbosity: template.verbosity,
      inventory: await nameAndId(db, 'inventories', template.inventory_id),
      credentials,
      scm_branch: template.scm_branch,
      forks: template.forks,
      timeout: template.timeout,
      job_slice_count: template.job_slice_count,
      execution_environment: await nameAndId(db, 'execution_environments', template.execution_environment_id),
      labels,
      instance_groups: instanceGroups,
    },
  };
}
