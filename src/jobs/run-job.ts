import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Row } from '../db/database.ts';
import { baseEnvironment } from '../dispatcher/exec.ts';
import type { RunContext, RunOutcome } from '../dispatcher/runners.ts';
import { insertEventRows } from './event-ingest.ts';
import { EventIngester } from './event-ingest.ts';
import { recordHostSummaries } from './host-summaries.ts';
import { prepareFactCache } from './fact-cache.ts';
import { preparePlaybookRun } from './private-data-dir.ts';
import { projectsRoot } from '../projects/config.ts';
import { isDirectory, projectDir } from '../projects/paths.ts';

export const ANSIBLE_RUNNER = '/usr/bin/ansible-runner';

/**
 * Runs a job's playbook with ansible-runner (`run --json`), storing its events as they arrive,
 * then its per-host results. Credentials reach the run through the private directory only.
 */
export async function runPlaybookJob(job: Row, run: RunContext): Promise<RunOutcome> {
  const [project] = await run.db.query('SELECT local_path FROM projects WHERE id = $1', [job.project_id]);
  const checkout = project ? projectDir(projectsRoot(), project.local_path) : null;
  if (!checkout || !(await isDirectory(checkout))) return { status: 'failed', explanation: 'The project has no files here yet: update the project first.' };
  if (!job.inventory_id) return { status: 'failed', explanation: 'The job has no inventory.' };
  const taskEnv = (run.services.settings.get('SVC_TASK_ENV') ?? {}) as Record<string, string>;
  const prepared = await preparePlaybookRun(run.db, job, run.privateDir, baseEnvironment(taskEnv));
  await writeFile(path.join(prepared.dir, 'env', 'cmdline'), prepared.cmdline.map(quote).join(' '), { mode: 0o600 });

  const hostIds = new Map<string, number>(
    (await run.db.query<{ name: string; id: number }>('SELECT name, id FROM hosts WHERE inventory_id = $1', [job.inventory_id])).map((h) => [h.name, h.id]),
  );
  const factCache = job.use_fact_cache ? await prepareFactCache(run.db, job.inventory_id, path.join(prepared.dir, 'artifacts', String(job.id), 'fact_cache')) : null;
  const offset = await run.position();
  const ingester = new EventIngester(run.db, job.id, hostIds, prepared.secrets, offset);
  const errors: string[] = [];
  const args = ['run', prepared.dir, '-p', job.playbook, '--project-dir', checkout, '--json', '--ident', String(job.id)];
  const result = await run.exec(ANSIBLE_RUNNER, args, {
    cwd: prepared.dir,
    env: prepared.env,
    secrets: prepared.secrets,
    onLine: (line, stream) => (stream === 'stdout' && line.startsWith('{') ? ingester.addLine(line) : errors.push(line)),
  });
  await ingester.flush();
  if (errors.length) {
    // Lines that were not events (runner's own complaints) follow the playbook's output.
    const base = { counter: ingester.lastCounter || offset.counter, line: ingester.lastLine || offset.line };
    await insertEventRows(run.db, job.id, errors.map((text, i) => ({
      counter: base.counter + i + 1, uuid: '', parent_uuid: '', event: 'verbose', event_data: {}, stdout: text, start_line: base.line + i,
      end_line: base.line + i + 1, verbosity: 0, host_id: null, host_name: '', playbook: '', play: '', task: '', role: '', changed: false,
      failed: false, created: new Date().toISOString(),
    })));
    run.advance(base.counter + errors.length, base.line + errors.length);
  } else run.advance(ingester.lastCounter, ingester.lastLine);
  if (ingester.stats) {
    const stats = ingester.stats;
    await run.db.transaction((tx) => recordHostSummaries(tx, job, stats));
  }
  if (factCache) await factCache.save(run.db);
  if (run.signal.aborted) return { status: 'failed' };
  if (result.code === 0) return { status: 'successful' };
  const failedHosts = ingester.stats ? Object.keys({ ...ingester.stats.failures, ...ingester.stats.dark }).length : 0;
  return { status: 'failed', explanation: failedHosts ? '' : `ansible-runner exited with code ${result.code}.` };
}

const quote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);
