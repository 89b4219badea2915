import path from 'node:path';
import type { RequestContext } from '../../api/context.ts';
import { ValidationError, type FieldErrors } from '../../api/errors.ts';
import type { Values } from '../../api/resource.ts';
import type { Queryable } from '../../db/database.ts';
import type { JobTemplateRow, ProjectRow } from '../../db/tables.ts';
import { branchProblem } from '../../projects/git-values.ts';
import { projectPlaybooks } from '../../projects/recorded-files.ts';

/** MAX_FORKS: the most forks a template or a launch may ask for (0: no limit). */
export const maxForks = (ctx: RequestContext) => Number(ctx.service.settings.get('MAX_FORKS'));

const valueOf = (values: Values, existing: JobTemplateRow | null, name: string, column: keyof JobTemplateRow) => (name in values ? values[name] : existing?.[column]);

/** What a template value may not be beyond its field declaration (on the template and when prompted at launch). */
export function templateValueProblems(values: Values, maxForks: number): FieldErrors {
  const errors: FieldErrors = {};
  const branch = 'scm_branch' in values ? branchProblem(String(values.scm_branch ?? '')) : null;
  if (branch) errors.scm_branch = [branch];
  if ('forks' in values && maxForks > 0 && (values.forks as number) > maxForks) errors.forks = [`Maximum number of forks (${maxForks}) exceeded.`];
  return errors;
}

/** A relative path that stays in the project's directory (what a listed playbook always is). */
function insideProject(playbook: string): boolean {
  const normal = path.posix.normalize(playbook);
  return !path.posix.isAbsolute(playbook) && normal !== '..' && !normal.startsWith('../') && !playbook.includes('\0');
}

/** Checks a template against its project and the settings, and keeps its organization the project's. */
export async function checkJobTemplate(tx: Queryable, ctx: RequestContext, values: Values, existing: JobTemplateRow | null): Promise<void> {
  const errors: FieldErrors = {};
  const projectId = valueOf(values, existing, 'project', 'project_id') as number | null | undefined;
  const [project] = projectId ? await tx.query<ProjectRow>('SELECT * FROM projects WHERE id = $1', [projectId]) : [];
  if (!project) errors.project = ['Job Templates must have a project assigned.'];
  else {
    // Only organizations/{id}/job_templates/ gives a new template an organization (the field is read-only): its project must be of it.
    if (!existing && typeof values.organization === 'number' && values.organization !== project.organization_id) {
      errors.project = ['The project must belong to the organization the template is created in.'];
    }
    values.organization = project.organization_id;
    const playbook = String(valueOf(values, existing, 'playbook', 'playbook') ?? '');
    const recheck = !existing || 'playbook' in values || project.id !== existing.project_id;
    // As AWX's JobTemplateSerializer.validate: a source-control project allowing branch override may
    // run a playbook of another branch, so its playbook is looked for only at launch.
    const anyBranch = Boolean(project.scm_type) && project.allow_override;
    if (recheck && !playbook) errors.playbook = ['Must select playbook for project.'];
    else if (recheck && (anyBranch ? !insideProject(playbook) : !(await projectPlaybooks(ctx.service, project)).includes(playbook))) errors.playbook = ['Playbook not found for project.'];
    if (!project.allow_override) {
      if (valueOf(values, existing, 'scm_branch', 'scm_branch') && ('scm_branch' in values || 'project' in values)) errors.scm_branch = ['Project does not allow overriding branch.'];
      if (valueOf(values, existing, 'ask_scm_branch_on_launch', 'ask_scm_branch_on_launch') === true) errors.ask_scm_branch_on_launch = ['Project does not allow overriding branch.'];
    }
  }
  const inventory = valueOf(values, existing, 'inventory', 'inventory_id');
  if ((inventory === null || inventory === undefined) && valueOf(values, existing, 'ask_inventory_on_launch', 'ask_inventory_on_launch') !== true) {
    errors.inventory = ["Job Template must provide 'inventory' or allow prompting for it."];
  }
  for (const [name, problem] of Object.entries(templateValueProblems(values, maxForks(ctx)))) errors[name] ??= problem;
  // A missing project is among the errors.
  if (!project || Object.keys(errors).length) throw new ValidationError(errors);
  const name = valueOf(values, existing, 'name', 'name');
  const duplicate = await tx.query('SELECT 1 FROM job_templates WHERE organization_id IS NOT DISTINCT FROM $1 AND name = $2 AND id <> $3 LIMIT 1', [
    project.organization_id,
    name,
    existing?.id ?? 0,
  ]);
  if (duplicate.length && project.organization_id !== null) throw new ValidationError({ __all__: ['Job Template with this Name and Organization already exists.'] });
}
