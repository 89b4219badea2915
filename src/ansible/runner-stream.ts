import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RunContext, RunOutcome } from '../runs/run-kind.ts';
import { shipJobEvents } from '../logging/sources.ts';
import { EventIngester } from './event-ingest.ts';
import type { PreparedRun } from './private-data-dir.ts';
import { ANSIBLE_RUNNER } from '../runtime/ansible-runtime.ts';
import { hostStatusCounts } from './host-status-counts.ts';

const quote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);

/** Writes ansible-runner's env/cmdline: the options it passes on to ansible or ansible-playbook. */
export async function writeCommandLine(prepared: PreparedRun, options: readonly string[]): Promise<void> {
  await writeFile(path.join(prepared.dir, 'env', 'cmdline'), options.map(quote).join(' '), { mode: 0o600 });
}

/**
 * Runs ansible-runner with `--json` (args name the run: `run <dir> ... --json --ident <id>`),
 * storing its events as they arrive, then the lines that were not events (runner's own
 * complaints) after them as the run's own output. `readable`: directories of the service host the
 * run reads besides its private directory (installed requirements, callback plugins).
 */
export async function streamRunnerEvents(run: RunContext, runId: number, inventoryIds: number | readonly number[], prepared: PreparedRun, args: string[], readable: string[] = []) {
  const hostIds = new Map<string, number>(
    // The hosts of every inventory of the run (their names are unique among them), enabled ones last so that they win.
    (await run.db.query<{ name: string; id: number }>('SELECT name, id FROM hosts WHERE inventory_id = ANY($1::int[]) ORDER BY enabled, id', [[inventoryIds].flat()])).map((h) => [h.name, h.id]),
  );
  const offset = await run.position();
  const ingester = new EventIngester(run.db, runId, hostIds, prepared.secrets, offset, (rows) => {
    run.services.caches.metrics.recordEventsStored(rows.map((row) => row.created));
    shipJobEvents(run.services.logShipper, runId, rows);
  }, run.services.tracing);
  const others: string[] = [];
  const result = await run.exec(ANSIBLE_RUNNER, args, {
    cwd: prepared.dir,
    env: prepared.env,
    secrets: prepared.secrets,
    sandbox: { readable },
    onLine: (line, stream) => (stream === 'stdout' && line.startsWith('{') ? ingester.addLine(line) : others.push(line)),
  });
  await ingester.flush();
  run.advance(ingester.lastCounter, ingester.lastLine);
  if (others.length) await run.output(others.join('\n'));
  return { code: result.code, ingester };
}

/**
 * How a runner process ended: failed hosts explain a failure themselves; otherwise the exit code
 * does. The run keeps how many hosts ended in each state (host_status_counts) from its stats.
 */
export function runnerOutcome(run: RunContext, code: number | null, ingester: EventIngester, extra?: Record<string, unknown>): RunOutcome {
  const updates = ingester.stats ? { ...extra, host_status_counts: JSON.stringify(hostStatusCounts(ingester.stats)) } : extra;
  if (run.signal.aborted) return { status: 'failed', updates };
  if (code === 0) return { status: 'successful', updates };
  const failedHosts = ingester.stats ? Object.keys({ ...ingester.stats.failures, ...ingester.stats.dark }).length : 0;
  return { status: 'failed', explanation: failedHosts ? '' : `ansible-runner exited with code ${code}.`, updates };
}
