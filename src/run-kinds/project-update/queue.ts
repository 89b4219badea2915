import type { RequestContext } from '../../api/context.ts';
import type { Queryable } from '../../db/database.ts';
import { ValidationError } from '../../api/errors.ts';
import { missingInputsProblem } from '../../resources/credentials/credential-use.ts';
import type { ProjectRow, UnifiedJobRow } from '../../db/tables.ts';
import { createRun } from '../../runs/lifecycle.ts';
import type { Launcher } from '../../runs/launch.ts';

/** What the runs core needs to create a project update (the kind itself adds its runner). */
export const PROJECT_UPDATE = { name: 'project_update', templateTable: 'projects' } as const;

/** Creates a pending sync of a git project from its current settings (the dispatcher runs it). */
export async function queueProjectUpdate(tx: Queryable, ctx: RequestContext, project: ProjectRow, launchType: string): Promise<UnifiedJobRow> {
  return createRun(tx, ctx, PROJECT_UPDATE, projectUpdateValues(project, launchType));
}

/** A sync of the project, read again and locked, with the launch type of its trigger. */
const projectUpdateLauncherFor = (launchType: string): Launcher<unknown> => ({
  kind: PROJECT_UPDATE,
  async plan(tx, _ctx, project) {
    const [locked] = await tx.query<ProjectRow>('SELECT * FROM projects WHERE id = $1 FOR UPDATE', [project!.id]);
    const unusable = await missingInputsProblem(tx, locked.credential_id ? [locked.credential_id] : [], 'Project Update');
    if (unusable) throw ValidationError.field('credential', unusable);
    return { values: projectUpdateValues(locked, launchType) };
  },
});

/** A sync started from update/ (the caller's update_role was checked). */
export const projectUpdateLauncher = projectUpdateLauncherFor('manual');
/** A sync started by a due schedule of the project. */
export const scheduledProjectUpdateLauncher = projectUpdateLauncherFor('scheduled');
/** A sync a workflow node starts: it answers to the workflow, not to a person. */
export const workflowNodeProjectUpdateLauncher = projectUpdateLauncherFor('workflow');

/** The update's columns: the project's source settings as they are now. */
function projectUpdateValues(project: ProjectRow, launchType: string): Record<string, unknown> {
  return {
    name: project.name,
    description: project.description,
    unified_job_template_id: project.id,
    launch_type: launchType,
    project_id: project.id,
    organization_id: project.organization_id,
    credential_id: project.credential_id,
    execution_environment_id: project.default_environment_id,
    job_type: 'check',
    scm_type: project.scm_type,
    scm_url: project.scm_url,
    scm_branch: project.scm_branch,
    scm_refspec: project.scm_refspec,
    scm_clean: project.scm_clean,
    scm_delete_on_update: project.scm_delete_on_update,
    scm_track_submodules: project.scm_track_submodules,
    local_path: project.local_path,
    timeout: project.timeout,
  };
}
