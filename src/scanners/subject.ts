import { lookupsOf, type LookupServices } from '../resources/credentials/dynamic-inputs.ts';
/**
 * What a launch gives the scanners to read: a job's project files at the revision it will run
 * (the project's last update, or the job's scm_branch), or an ad hoc command as a play of one
 * task. A job's scans are cached by (tool, config, project, revision, playbook).
 */
import { cp, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import type { Services } from '../api/context.ts';
import type { Queryable } from '../db/database.ts';
import type { ProjectRow, UnifiedJobRow } from '../db/tables.ts';
import { baseEnvironment } from '../runs/exec.ts';
import { requirementsDir, requirementsSearchPaths } from '../projects/paths.ts';
import { branchOverride, type Exec } from '../projects/revision-files.ts';
import { CACHED_PROJECT_COLUMNS, filesForRun, readSourceAccess, revisionRequirementsDir, type CacheRun, type CachedProject } from '../projects/revision-cache.ts';
import type { ScanFiles } from './run-tool.ts';

export interface CacheKey {
  project_id: number;
  scm_revision: string;
  playbook: string;
}

export type ScanSubject = { files: ScanFiles; key: CacheKey | null; project_id: number | null; scm_revision: string; playbook: string } | { problem: string };

/** Where Ansible finds the roles and collections the project's requirements installed. */
const projectLookups = (requirements: string) => ({ env: requirementsSearchPaths(requirements, baseEnvironment()) });

/** The files a starting job copied (at `revision`), for the scan of a revision its launch did not see. */
export function copiedSubject(project: Pick<ProjectRow, 'id' | 'scm_type'>, copy: { dir: string; revision: string; requirements: string }, playbook: string): ScanSubject {
  const files: ScanFiles = {
    ...projectLookups(copy.requirements),
    playbook,
    readable: [copy.requirements],
    fill: async (_exec, dir) => {
      await cp(copy.dir, dir, { recursive: true, verbatimSymlinks: true });
      return null;
    },
  };
  const key = project.scm_type && copy.revision ? { project_id: project.id, scm_revision: copy.revision, playbook } : null;
  return { files, key, project_id: project.id, scm_revision: copy.revision, playbook };
}

/**
 * A launching job's files, as its node will run them: the revision the job records, which this
 * node fetches into its cache when it does not hold it (src/projects/revision-cache.ts).
 */
async function jobSubject(tx: Queryable, services: Pick<Services, 'settings' | 'env'>, run: UnifiedJobRow): Promise<ScanSubject> {
  const [project] = await tx.query<CachedProject>(`SELECT ${CACHED_PROJECT_COLUMNS} FROM projects WHERE id = $1`, [run.project_id]);
  const playbook = String(run.playbook ?? '');
  if (!project || !playbook) return { problem: 'The job has no project or playbook to scan.' };
  const branch = branchOverride(run, project);
  const want = branch === null ? { revision: project.scm_revision ?? '' } : { branch };
  // Known before the fetch unless a branch is to be resolved (a manual project's are beside its directory).
  const requirements = !project.scm_type ? requirementsDir(services.env.projectsRoot, project.local_path)
    : branch === null ? revisionRequirementsDir(services.env, project.local_path, project.scm_revision) : null;
  // The files are taken after the launch's transaction: what fetching needs of the database is read now.
  const access = project.scm_type ? await readSourceAccess(tx, services.env, project, lookupsOf(services as LookupServices)) : undefined;
  // A branch's commit is known once fetched: such scans are not cached.
  const revision = branch === null ? project.scm_revision : '';
  const files: ScanFiles = {
    ...(requirements ? projectLookups(requirements) : { env: {} }),
    playbook,
    readable: requirements ? [requirements] : [],
    fill: async (exec, dir) => {
      const copy = await filesForRun({ ...scanRun(tx, services, exec, dir), access }, project, want, dir);
      if ('problem' in copy) return copy;
      copy.release();
      return null;
    },
  };
  // A manual project has no revision: its files may change under the same name, so it is scanned each time.
  const key = project.scm_type && revision ? { project_id: project.id, scm_revision: revision, playbook } : null;
  return { files, key, project_id: project.id, scm_revision: revision, playbook };
}

/** A scan's sandbox as fetching a revision sees a run: its output is not kept (nor is `db` read once `access` is given). */
function scanRun(db: Queryable, services: Pick<Services, 'settings' | 'env'>, exec: Exec, dir: string): CacheRun {
  return { db, services, exec, privateDir: path.dirname(dir), signal: new AbortController().signal, output: async () => undefined };
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
