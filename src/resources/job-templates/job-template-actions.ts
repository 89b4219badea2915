/** What a job template's routes ask of its access policy beyond view and change (see route-objects.ts). */
import { hasObjectRole, hasObjectRoleOnRow, isSuperuser, type Capability, type ObjectAction } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import type { Queryable } from '../../db/database.ts';
import type { JobTemplateRow } from '../../db/tables.ts';
import { assertCanUseCredential } from '../credentials/credential-use.ts';
import { jobTemplateAccess } from './job-template-access.ts';
import { templateCredentialIds } from './template-relations.ts';

/** Whether the caller could make a copy: create a template with the same project, inventory, execution environment and credentials. */
export async function mayCopy(ctx: RequestContext, db: Queryable, template: JobTemplateRow): Promise<boolean> {
  const references = { project: template.project_id, inventory: template.inventory_id, execution_environment: template.execution_environment_id };
  if (!(await jobTemplateAccess.canCreate(ctx, db, references))) return false;
  for (const id of await templateCredentialIds(db, template.id)) {
    try {
      await assertCanUseCredential(ctx, db, id, 'credentials');
    } catch {
      return false;
    }
  }
  return true;
}

export const jobTemplateActions: Record<string, ObjectAction<JobTemplateRow>> = {
  execute: (ctx, tx, row) => hasObjectRole(ctx, tx, 'job_template', row.id, 'execute_role'),
  administer: (ctx, tx, row) => hasObjectRole(ctx, tx, 'job_template', row.id, 'admin_role'),
  copy: mayCopy,
};

/** AWX: a template without a project, or without an inventory it does not ask for, can be neither started nor copied. */
const launchable = (row: Pick<JobTemplateRow, 'project_id' | 'inventory_id' | 'ask_inventory_on_launch'>) => row.project_id !== null && (row.inventory_id !== null || row.ask_inventory_on_launch === true);

/** user_capabilities of a job template beyond edit and delete, as AWX shows them. */
export const jobTemplateCapabilities: Record<string, Capability<JobTemplateRow> | string> = {
  start: (ctx, tx, row, page) => launchable(row) && hasObjectRoleOnRow(ctx, tx, 'job_template', 'execute_role', row, page),
  schedule: 'start',
  // A copy uses the project (use_role, looked up once for the page) before anything else is asked.
  copy: async (ctx, tx, row, page) =>
    launchable(row) && (isSuperuser(ctx) || ((await hasObjectRoleOnRow(ctx, tx, 'project', 'use_role', row, page, 'project_id')) && mayCopy(ctx, tx, row))),
};
