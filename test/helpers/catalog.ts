// The service catalog's test objects: job templates that need no project checkout (for services
// started without their loops, whose launches stay pending), surveys, and catalog items.
import assert from 'node:assert/strict';
import type { TestApp } from './app.ts';
import type { JobTemplateRow } from '../../src/db/tables.ts';
import { createObjectRoles } from '../../src/rbac/object-roles.ts';
import { unique, type Ref, type User } from './factories.ts';

const idOf = (ref: Ref) => (typeof ref === 'number' ? ref : ref.id);

export interface Question {
  variable: string;
  type: string;
  required?: boolean;
  [field: string]: unknown;
}

/** A survey spec of these questions (question_name is the variable's name unless given). */
export const survey = (...questions: Question[]) => ({
  name: 'survey', description: '',
  spec: questions.map((q) => ({ question_name: q.variable, required: false, ...q })),
});

/** Sets a template's survey through the API and enables it. */
export async function setSurvey(t: TestApp, template: string, spec: ReturnType<typeof survey>): Promise<void> {
  const res = await t.post(`${template}survey_spec/`, spec);
  assert.equal(res.status, 200, res.text);
  const table = template.includes('/workflow_job_templates/') ? 'workflow_job_templates' : 'job_templates';
  await t.db.query(`UPDATE ${table} SET survey_enabled = true WHERE id = $1`, [Number(template.split('/').at(-2))]);
}

/**
 * A job template of the organization, on a project that is never synced (its playbook is not
 * checked), stored directly: for services whose loops do not run. Answers its id.
 */
export async function bareJobTemplate(t: TestApp, org: Ref, fields: { name?: string; inventory?: number | null; survey?: ReturnType<typeof survey> } = {}): Promise<number> {
  const [project] = await t.db.query<{ id: number }>(
    `INSERT INTO projects (name, organization_id, scm_type, scm_url) VALUES ($1, $2, 'git', 'https://git.example.invalid/plays.git') RETURNING id`,
    [unique('bare-project'), idOf(org)],
  );
  const inventory = fields.inventory === undefined
    ? (await t.db.query<{ id: number }>('INSERT INTO inventories (name, organization_id) VALUES ($1, $2) RETURNING id', [unique('bare-inventory'), idOf(org)]))[0].id
    : fields.inventory;
  const template = await t.db.transaction(async (tx) => {
    const [row] = await tx.query<JobTemplateRow>(
      `INSERT INTO job_templates (name, organization_id, project_id, inventory_id, playbook) VALUES ($1, $2, $3, $4, 'site.yml') RETURNING *`,
      [fields.name ?? unique('bare-jt'), idOf(org), project.id, inventory],
    );
    // Its roles as the API would make them: the organization's admins and executors may run it.
    await createObjectRoles(tx, t.services.resources.get('job_template'), row);
    return row;
  });
  if (fields.survey) await setSurvey(t, `/api/v2/job_templates/${template.id}/`, fields.survey);
  return template.id;
}

/** Creates a catalog item of the organization launching the template, as `as` (the admin unless given), and answers its body. */
export async function newCatalogItem(
  t: TestApp, org: Ref, template: { job_template?: number; workflow_job_template?: number }, fields: Record<string, unknown> = {}, as?: User,
): Promise<any> {
  const body = { name: unique('item'), organization: idOf(org), ...template, ...fields };
  const res = await t.post('/api/v2/service_catalog_items/', body, as ? { as } : {});
  assert.equal(res.status, 201, `creating catalog item ${body.name}: ${res.text}`);
  return res.body;
}
