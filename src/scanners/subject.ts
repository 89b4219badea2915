/**
 * What a launch gives the scanners to read: a job's project files at the revision it will run
 * (the project's last update, or the job's scm_branch in it), or an ad hoc command as a play of one
 * task. A job's scans are cached by (tool, config, project, revision, playbook).
 */
import { cp, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import type { Services } from '../api/context.ts';
import type { Queryable } from '../db/database.ts';
import type { ProjectRow, UnifiedJobRow } from '../db/tables.ts';
import { baseEnvironment } from '../runs/exec.ts';
import { projectFilesDir } from '../projects/local-sources.ts';
import { requirementsDir, requirementsSearchPaths } from '../projects/paths.ts';
import { branchOverride, copyRevision, jobRevision } from '../projects/revision-files.ts';
import { inSandbox, type ScanFiles } from './run-tool.ts';

export interface CacheKey {
  project_id: number;
  scm_revision: string;
  playbook: string;
}

export type ScanSubject = { files: ScanFiles; key: CacheKey | null; project_id: number | null; scm_revision: string; playbook: string } | { problem: string };

const REVISION_LOOKUP_MS = 15_000;

type Project = Pick<ProjectRow, 'id' | 'local_path' | 'scm_type' | 'scm_branch' | 'scm_revision'>;

/** Where Ansible finds the roles and collections the project's requirements installed. */
const projectLookups = (services: Pick<Services, 'env'>, localPath: string) => ({
  env: requirementsSearchPaths(services.env.projectsRoot, localPath, baseEnvironment()),
});

/** The files a starting job copied (at `revision`), for the scan of a revision its launch did not see. */
export function copiedSubject(services: Pick<Services, 'env'>, project: Pick<ProjectRow, 'id' | 'local_path' | 'scm_type'>, copy: { dir: string; revision: string }, playbook: string): ScanSubject {
  const files: ScanFiles = {
    ...projectLookups(services, project.local_path),
    playbook,
    readable: [requirementsDir(services.env.projectsRoot, project.local_path)],
    fill: async (_exec, dir) => {
      await cp(copy.dir, dir, { recursive: true, verbatimSymlinks: true });
      return null;
    },
  };
  const key = project.scm_type && copy.revision ? { project_id: project.id, scm_revision: copy.revision, playbook } : null;
  return { files, key, project_id: project.id, scm_revision: copy.revision, playbook };
}

async function jobSubject(tx: Queryable, services: Pick<Services, 'settings' | 'env'>, run: UnifiedJobRow): Promise<ScanSubject> {
  const [project] = await tx.query<Project>('SELECT id, local_path, scm_type, scm_branch, scm_revision FROM projects WHERE id = $1', [run.project_id]);
  const playbook = String(run.playbook ?? '');
  if (!project || !playbook) return { problem: 'The job has no project or playbook to scan.' };
  const checkout = await projectFilesDir(services, project.local_path);
  if (!checkout) return { problem: 'The project has no files here yet: update the project first.' };
  // Only another branch, tag or commit is looked up in the checkout (git, in the sandbox).
  const revision = branchOverride(run, project) === null
    ? { revision: project.scm_revision ?? '', fromBranch: null }
    : await inSandbox(services, REVISION_LOOKUP_MS, (exec) => jobRevision(exec, run, project, checkout));
  if ('problem' in revision) return revision;
  const files: ScanFiles = {
    ...projectLookups(services, project.local_path),
    playbook,
    readable: [checkout, requirementsDir(services.env.projectsRoot, project.local_path)],
    fill: async (exec, dir) => {
      const copy = await copyRevision(exec, revision, checkout, dir);
      return 'problem' in copy ? copy : null;
    },
  };
  // A manual project has no revision: its files may change under the same name, so it is scanned each time.
  const key = project.scm_type && revision.revision ? { project_id: project.id, scm_revision: revision.revision, playbook } : null;
  return { files, key, project_id: project.id, scm_revision: revision.revision, playbook };
}

const AD_HOC_PLAYBOOK = 'ad_hoc_command.yml';

/** An ad hoc command as the play Ansible runs for it: its module and arguments as one task. */
function adHocSubject(run: UnifiedJobRow): ScanSubject {
  const module = String(run.module_name || 'command');
  const args = String(run.module_args ?? '');
  const play = [{ name: 'Ad hoc command', hosts: 'all', gather_facts: false, tasks: [{ name: 'Ad hoc command', [module]: args || null }] }];
  const files: ScanFiles = {
    playbook: AD_HOC_PLAYBOOK,
    env: {},
    readable: [],
    fill: async (_exec, dir) => {
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, AD_HOC_PLAYBOOK), `---\n${stringify(play)}`);
      return null;
    },
  };
  return { files, key: null, project_id: null, scm_revision: '', playbook: AD_HOC_PLAYBOOK };
}

export async function scanSubject(tx: Queryable, services: Pick<Services, 'settings' | 'env'>, run: UnifiedJobRow, target: string): Promise<ScanSubject> {
  return target === 'ad_hoc_command' ? adHocSubject(run) : jobSubject(tx, services, run);
}
