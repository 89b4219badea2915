import path from 'node:path';
import type { ProjectRow, UnifiedJobRow } from '../../db/tables.ts';
import { baseEnvironment } from '../../runs/exec.ts';
import type { RunContext, RunOutcome } from '../../runs/run-kind.ts';
import { recordHostSummaries } from '../../ansible/host-summaries.ts';
import { prepareFactCache } from '../../ansible/fact-cache.ts';
import { queueFactCapture } from '../../drift/capture-queue.ts';
import { preparePlaybookRun } from '../../ansible/private-data-dir.ts';
import { trustedJobVars } from '../../ansible/extra-vars-file.ts';
import { runnerOutcome, streamRunnerEvents, writeCommandLine } from '../../ansible/runner-stream.ts';
import { copyRevision, jobRevision } from '../../projects/revision-files.ts';
import { recordInvocation } from '../../runs/invocation.ts';
import { scanAtRunStart } from '../../scanners/run-start.ts';
import { projectFilesDir } from '../../projects/local-sources.ts';
import { requirementsDir, requirementsSearchPaths } from '../../projects/paths.ts';

/** What a job reads of its project. */
type ProjectCheckout = Pick<ProjectRow, 'local_path' | 'scm_type' | 'scm_branch' | 'scm_revision'>;

/**
 * Runs a job's playbook with ansible-runner (`run --json`), storing its events as they arrive,
 * then its per-host results. Credentials reach the run through the private directory only.
 */
export async function runPlaybookJob(job: UnifiedJobRow, run: RunContext): Promise<RunOutcome> {
  const [project] = await run.db.query<ProjectCheckout>('SELECT local_path, scm_type, scm_branch, scm_revision FROM projects WHERE id = $1', [job.project_id]);
  const checkout = project ? await projectFilesDir(run.services, project.local_path) : null;
  if (!checkout) return { status: 'failed', explanation: 'The project has no files here yet: update the project first.' };
  if (!job.inventory_id) return { status: 'failed', explanation: 'The job has no inventory.' };
  const taskEnv = (run.services.settings.get('SVC_TASK_ENV') ?? {}) as Record<string, string>;
  const baseEnv = baseEnvironment(taskEnv);
  const trusted = await trustedJobVars(run.db, run.services.settings.get('ALLOW_JINJA_IN_EXTRA_VARS'), job);
  const env = { ...baseEnv, ...requirementsSearchPaths(run.services.env.projectsRoot, project.local_path, baseEnv), ...callbackPlugins(run) };
  const prepared = await preparePlaybookRun(run.db, job, run.privateDir, env, trusted);
  await writeCommandLine(prepared, prepared.cmdline);
  const revision = await jobRevision(run.exec, job, project, checkout);
  if ('problem' in revision) return { status: 'failed', explanation: revision.problem };
  const copy = await copyRevision(run.exec, revision, checkout, path.join(run.privateDir, 'project'));
  if ('problem' in copy) return { status: 'failed', explanation: copy.problem };
  if (revision.fromBranch) await run.output(`Running on ${revision.fromBranch} at revision ${revision.revision} (the job's scm_branch).`);
  const blocked = await scanAtRunStart(run, job, { id: job.project_id!, local_path: project.local_path, scm_type: project.scm_type }, copy);
  if (blocked) return { status: 'failed', explanation: blocked };

  await recordInvocation(run.db, job.id, { args: ['ansible-playbook', ...prepared.cmdline, job.playbook], cwd: copy.dir, env: prepared.env, secrets: prepared.secrets });
  const factCache = job.use_fact_cache
    ? await prepareFactCache(run.db, job.inventory_id, path.join(prepared.dir, 'artifacts', String(job.id), 'fact_cache'), run.services.settings.get('ANSIBLE_FACT_CACHE_TIMEOUT'))
    : null;
  const args = ['run', prepared.dir, '-p', job.playbook, '--project-dir', copy.dir, '--json', '--ident', String(job.id)];
  const readable = [requirementsDir(run.services.env.projectsRoot, project.local_path), ...run.services.settings.get<string[]>('AWX_ANSIBLE_CALLBACK_PLUGINS')];
  const { code, ingester } = await streamRunnerEvents(run, job.id, job.inventory_id, prepared, args, readable);
  if (ingester.stats) {
    const stats = ingester.stats;
    await run.db.transaction((tx) => recordHostSummaries(tx, run.services.resources, job, stats));
  }
  // Their snapshots and drift are taken in the background (src/drift), not before the job ends.
  if (factCache) await queueFactCapture(run.db, job.id, await factCache.save(run.db));
  // set_stats values of the play (AWX's artifacts), which workflows pass on to the nodes after this one.
  const artifacts = (ingester.stats as Record<string, unknown> | null)?.artifact_data;
  const kept = artifacts && typeof artifacts === 'object' && Object.keys(artifacts).length ? { artifacts: JSON.stringify(artifacts) } : {};
  return runnerOutcome(run, code, ingester, { scm_revision: copy.revision, ...kept });
}

/** AWX_ANSIBLE_CALLBACK_PLUGINS: extra directories Ansible searches for callback plugins. */
function callbackPlugins(run: RunContext): Record<string, string> {
  const dirs = run.services.settings.get('AWX_ANSIBLE_CALLBACK_PLUGINS');
  return dirs.length ? { ANSIBLE_CALLBACK_PLUGINS: dirs.join(':') } : {};
}
