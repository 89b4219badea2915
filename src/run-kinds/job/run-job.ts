import { lookupsOf } from '../../resources/credentials/dynamic-inputs.ts';
import path from 'node:path';
import type { UnifiedJobRow } from '../../db/tables.ts';
import { baseEnvironment } from '../../runs/exec.ts';
import type { RunContext, RunOutcome } from '../../runs/run-kind.ts';
import { recordHostSummaries } from '../../ansible/host-summaries.ts';
import { prepareFactCache } from '../../ansible/fact-cache.ts';
import { queueFactCapture } from '../../drift/capture-queue.ts';
import { preparePlaybookRun } from '../../ansible/private-data-dir.ts';
import { trustedJobVars } from '../../ansible/extra-vars-file.ts';
import { jobMetaVars } from './meta-vars.ts';
import { ambiguousHostProblem } from './launch-inventories.ts';
import { jobInventoryIds } from '../../resources/job-templates/template-inventories.ts';
import { runnerOutcome, streamRunnerEvents, writeCommandLine } from '../../ansible/runner-stream.ts';
import { branchOverride } from '../../projects/revision-files.ts';
import { CACHED_PROJECT_COLUMNS, filesForRun, type CachedProject, type RunFiles } from '../../projects/revision-cache.ts';
import { recordInvocation } from '../../runs/invocation.ts';
import { scanAtRunStart } from '../../scanners/run-start.ts';
import { requirementsSearchPaths } from '../../projects/paths.ts';

/**
 * Runs a job's playbook with ansible-runner (`run --json`), storing its events as they arrive,
 * then its per-host results. Credentials reach the run through the private directory only. The
 * playbook runs on a copy of the project at exactly the revision the job records (the project's
 * last update, or the job's scm_branch), fetched by this node when it does not hold it.
 */
export async function runPlaybookJob(job: UnifiedJobRow, run: RunContext): Promise<RunOutcome> {
  const [project] = await run.db.query<CachedProject>(`SELECT ${CACHED_PROJECT_COLUMNS} FROM projects WHERE id = $1`, [job.project_id]);
  if (!project) return { status: 'failed', explanation: 'The job has no project.' };
  if (!job.inventory_id) return { status: 'failed', explanation: 'The job has no inventory.' };
  const branch = branchOverride(job, project);
  const copy = await filesForRun(run, project, branch === null ? { revision: project.scm_revision } : { branch }, path.join(run.privateDir, 'project'));
  if ('problem' in copy) return { status: 'failed', explanation: copy.problem };
  try {
    return await runOnCopy(job, run, project, copy, branch);
  } finally {
    copy.release();
  }
}

async function runOnCopy(job: UnifiedJobRow, run: RunContext, project: CachedProject, copy: RunFiles, branch: string | null): Promise<RunOutcome> {
  const inventoryIds = [job.inventory_id!, ...(await jobInventoryIds(run.db, job.id))];
  // An inventory may have gained a host of another's name since the launch was accepted.
  const ambiguous = await ambiguousHostProblem(run.db, inventoryIds);
  if (ambiguous) return { status: 'failed', explanation: ambiguous };
  const taskEnv = (run.services.settings.get('SVC_TASK_ENV') ?? {}) as Record<string, string>;
  const baseEnv = baseEnvironment(taskEnv);
  const trusted = await trustedJobVars(run.db, run.services.settings.get('ALLOW_JINJA_IN_EXTRA_VARS'), job);
  const env = { ...baseEnv, ...requirementsSearchPaths(copy.requirements, baseEnv), ...callbackPlugins(run) };
  const prepared = await preparePlaybookRun(run.db, job, run.privateDir, env, await jobMetaVars(run.db, job), trusted, lookupsOf(run.services, run.signal));
  await writeCommandLine(prepared, prepared.cmdline);
  if (branch) await run.output(`Running on ${branch} at revision ${copy.revision} (the job's scm_branch).`);
  const blocked = await scanAtRunStart(run, job, { id: job.project_id!, scm_type: project.scm_type }, copy);
  if (blocked) return { status: 'failed', explanation: blocked };

  await recordInvocation(run.db, job.id, { args: ['ansible-playbook', ...prepared.cmdline, job.playbook], cwd: copy.dir, env: prepared.env, secrets: prepared.secrets });
  const factCache = job.use_fact_cache
    ? await prepareFactCache(run.db, inventoryIds, path.join(prepared.dir, 'artifacts', String(job.id), 'fact_cache'), run.services.settings.get('ANSIBLE_FACT_CACHE_TIMEOUT'))
    : null;
  const args = ['run', prepared.dir, '-p', job.playbook, '--project-dir', copy.dir, '--json', '--ident', String(job.id)];
  const readable = [copy.requirements, ...run.services.settings.get<string[]>('AWX_ANSIBLE_CALLBACK_PLUGINS')];
  const { code, ingester } = await streamRunnerEvents(run, job.id, inventoryIds, prepared, args, readable);
  if (ingester.stats) {
    const stats = ingester.stats;
    await run.db.transaction((tx) => recordHostSummaries(tx, run.services.resources, job, stats, inventoryIds));
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
