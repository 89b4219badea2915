import { mkdir, readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import type { UnifiedJobRow } from '../../db/tables.ts';
import type { RunContext, RunOutcome } from '../../runs/run-kind.ts';
import { baseEnvironment, scrub } from '../../runs/exec.ts';
import { recordInvocation } from '../../runs/invocation.ts';
import { refreshInventoryComputedFields } from '../../inventory/computed-fields.ts';
import { importInventory, summaryLines } from '../../inventory-import/import.ts';
import { applyLimit, LimitError } from '../../inventory-import/limit.ts';
import { InventoryFormatError, parseInventory } from '../../inventory-import/parse.ts';
import { explainFailure } from './failure.ts';
import { prepareSource, SourceProblem, type PreparedSource } from './prepare-source.ts';
import { importDefaults } from '../../resources/inventory-sources/source-kinds.ts';

/** Runs ansible-inventory with stdout and stderr shown live and also kept in a file (for the explanation). */
const TEE_SCRIPT = 'set -o pipefail; log="$1"; shift; ansible-inventory "$@" 2>&1 | tee "$log"';

/**
 * Runs one inventory update: prepares what the source reads, runs `ansible-inventory --list`
 * on it, and imports the result with the source's overwrite rules in one transaction.
 */
export async function runInventoryUpdate(job: UnifiedJobRow, run: RunContext): Promise<RunOutcome> {
  const taskEnv = (run.services.settings.get('SVC_TASK_ENV') ?? {}) as Record<string, string>;
  // An update is deleted with its source, and a source with its inventory: a stored update has both.
  const inventoryId = job.inventory_id!;
  const sourceId = job.inventory_source_id!;
  let prepared: PreparedSource;
  try {
    prepared = await prepareSource(run, job, baseEnvironment(taskEnv));
  } catch (err) {
    if (err instanceof SourceProblem) return { status: 'failed', explanation: err.message };
    throw err;
  }
  const artifacts = path.join(run.privateDir, 'artifacts');
  await mkdir(artifacts, { recursive: true, mode: 0o700 });
  const outputFile = path.join(artifacts, 'output.json');
  const logFile = path.join(artifacts, 'ansible-inventory.log');
  const args = [...(prepared.inputPaths ?? []).flatMap((input) => ['-i', input]), '-i', prepared.inventoryPath, '--list', '--export', '--output', outputFile, '--playbook-dir', prepared.playbookDir];
  if (job.verbosity > 0) args.push(`-${'v'.repeat(Math.min(5, job.verbosity * 2 + 1))}`);
  const updates: Record<string, unknown> = { ...prepared.updates };
  await recordInvocation(run.db, job.id, { args: ['ansible-inventory', ...args], cwd: prepared.playbookDir, env: prepared.env, secrets: prepared.secrets });
  await run.output(`Running ansible-inventory -i ${prepared.inventoryPath} --list`);
  const started = performance.now();
  const result = await run.exec('bash', ['-c', TEE_SCRIPT, 'bash', logFile, ...args], {
    cwd: prepared.playbookDir,
    env: prepared.env,
    secrets: prepared.secrets,
    sandbox: { readable: prepared.readable ?? [] },
  }).finally(() => prepared.release?.());
  if (run.signal.aborted) return { status: 'failed', explanation: 'The inventory update was stopped.', updates };
  if (result.code !== 0) {
    const log = scrub(await readFile(logFile, 'utf8').catch(() => ''), prepared.secrets);
    return { status: 'failed', explanation: explainFailure(result.code, log), updates };
  }
  const readSeconds = (performance.now() - started) / 1000;

  const defaults = importDefaults(job.source);
  const enabledVar = job.enabled_var || defaults.enabledVar;
  let inventory;
  try {
    inventory = parseInventory(await readFile(outputFile, 'utf8'), { hostFilter: job.host_filter || undefined, excludeEmptyGroups: defaults.excludeEmptyGroups });
    if (job.limit) applyLimit(inventory, job.limit);
  } catch (err) {
    if (err instanceof InventoryFormatError || err instanceof LimitError) return { status: 'failed', explanation: err.message, updates };
    throw err;
  }
  await run.output(`Loaded ${inventory.groups.size} groups, ${inventory.hosts.size} hosts (ansible-inventory took ${readSeconds.toFixed(3)} s)`);
  if (run.signal.aborted) return { status: 'failed', explanation: 'The inventory update was stopped.', updates };
  const importStarted = performance.now();
  const summary = await run.db.transaction(async (tx) => {
    const imported = await importInventory(tx, inventory, {
      inventoryId,
      inventorySourceId: sourceId,
      overwrite: job.overwrite,
      overwriteVars: job.overwrite_vars,
      enabledVar,
      enabledValue: job.enabled_var ? job.enabled_value : defaults.enabledValue,
      instanceIdVar: defaults.instanceIdVar,
    });
    await refreshInventoryComputedFields(tx, run.services.resources, inventoryId);
    return imported;
  });
  const importSeconds = (performance.now() - importStarted) / 1000;
  await run.output([...summaryLines(summary), `Inventory import completed in ${importSeconds.toFixed(3)} s`].join('\n'));
  return { status: 'successful', updates };
}
