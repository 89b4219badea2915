/**
 * What custom messages may use (AWX's JobNotificationMixin.context): `job` with the run's fields
 * AWX allows (and the summaries of what it ran with), `job_friendly_name`, `url` (the run in the
 * UI), `job_metadata` (a JSON document of the run), plus a caller's extra context (approvals).
 */
import { systemContextIn } from '../api/context.ts';
import { serializeRow } from '../api/serialize.ts';
import type { ResourceRow } from '../db/database.ts';
import type { UnifiedJobRow } from '../db/tables.ts';
import type { RunMessages } from '../runs/run-kind.ts';
import type { RunServices } from '../runs/run-services.ts';

/** A run's row: unified_jobs' columns, and those of its kind's table when read from it. */
type RunRow = UnifiedJobRow & ResourceRow;

const JOB_FIELDS = [
  'id', 'type', 'url', 'created', 'modified', 'name', 'description', 'job_type', 'playbook', 'forks', 'limit', 'verbosity', 'job_tags',
  'force_handlers', 'skip_tags', 'start_at_task', 'timeout', 'use_fact_cache', 'launch_type', 'status', 'failed', 'started', 'finished',
  'elapsed', 'job_explanation', 'execution_node', 'controller_node', 'allow_simultaneous', 'scm_revision', 'diff_mode', 'job_slice_number',
  'job_slice_count', 'custom_virtualenv', 'approval_status', 'approval_node_name', 'workflow_url', 'scm_branch', 'artifacts',
];
const HOST_COUNTS = ['skipped', 'ok', 'changed', 'failed', 'failures', 'dark', 'processed', 'rescued', 'ignored'];
const SUMMARIES: Record<string, string[]> = {
  inventory: ['id', 'name', 'description', 'has_active_failures', 'total_hosts', 'hosts_with_active_failures', 'total_groups', 'has_inventory_sources',
    'total_inventory_sources', 'inventory_sources_with_failures', 'organization_id', 'kind'],
  project: ['id', 'name', 'description', 'status', 'scm_type'],
  job_template: ['id', 'name', 'description'],
  unified_job_template: ['id', 'name', 'description', 'unified_job_type'],
  instance_group: ['name', 'id'],
  created_by: ['id', 'username', 'first_name', 'last_name'],
  schedule: ['id', 'name', 'description', 'next_run'],
  labels: ['count', 'results'],
};

const pick = (from: Record<string, unknown> | undefined, names: readonly string[]) =>
  Object.fromEntries(names.filter((n) => from && n in from).map((n) => [n, from![n]]));

/** The service's address for links (SVC_URL_BASE), without a trailing slash. */
export const urlBase = (services: RunServices) => String(services.settings.get('SVC_URL_BASE') ?? '').replace(/\/+$/, '');

/** The run's fields offered to messages, as its API representation shows them. */
async function jobFields(services: RunServices, run: RunRow): Promise<Record<string, unknown>> {
  const resource = services.runKinds.get(run.kind).resource;
  const shown = await serializeRow(services.db, systemContextIn(services), resource, run);
  const job: Record<string, unknown> = pick(shown, JOB_FIELDS);
  const counts = (run.host_status_counts ?? {}) as Record<string, unknown>;
  job.host_status_counts = pick(counts, HOST_COUNTS);
  const summary = (shown.summary_fields ?? {}) as Record<string, Record<string, unknown>>;
  job.summary_fields = Object.fromEntries(Object.entries(SUMMARIES).filter(([name]) => summary[name]).map(([name, fields]) => [name, pick(summary[name], fields)]));
  return job;
}

/** AWX's notification_data: what the default bodies and webhooks carry. */
async function jobMetadata(services: RunServices, run: RunRow, job: Record<string, unknown>, url: string, messages: RunMessages): Promise<Record<string, unknown>> {
  const summary = (job.summary_fields ?? {}) as Record<string, Record<string, unknown>>;
  const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : v ?? null);
  const data: Record<string, unknown> = {
    id: run.id,
    name: run.name,
    url,
    created_by: summary.created_by?.username ?? 'None',
    started: iso(job.started ?? run.started),
    finished: job.finished === false ? false : iso(run.finished),
    status: job.status,
    traceback: run.result_traceback ?? '',
  };
  if (!messages.playbookFacts) return data;
  const hosts = await services.db.query(
    'SELECT host_name, failed, changed, dark, failures, ok, processed, skipped, rescued, ignored FROM job_host_summaries WHERE job_id = $1 ORDER BY host_name',
    [run.id],
  );
  return {
    ...data,
    hosts: Object.fromEntries(hosts.map(({ host_name, ...counts }) => [host_name, counts])),
    playbook: run.playbook,
    inventory: summary.inventory?.name ?? null,
    project: summary.project?.name ?? null,
    limit: run.limit,
    friendly_name: messages.friendly,
  };
}

export interface NotificationFacts {
  event: string;
  run_status: string;
  extra_context: Record<string, unknown>;
}

/** The context of a notification about `run` (null for a test), with the run's status at the event. */
export async function messageContext(services: RunServices, run: RunRow | null, facts: NotificationFacts): Promise<Record<string, unknown>> {
  const base = urlBase(services);
  // The service's address, for messages whose links are paths of their own (a service request's).
  if (!run) return { url_base: base, ...facts.extra_context };
  // Each kind as AWX names it in messages and in its UI address (the run kind's `messages`).
  const kind: RunMessages = services.runKinds.get(run.kind).messages ?? { friendly: run.kind, ui: run.kind };
  const job = await jobFields(services, run);
  // The run has moved on since the event: messages show it as it was then.
  if (facts.run_status) job.status = facts.run_status;
  if (facts.event === 'started') Object.assign(job, { finished: false, failed: false });
  const url = `${base}/#/jobs/${kind.ui}/${run.id}`;
  const metadata = await jobMetadata(services, run, job, url, kind);
  return {
    job,
    job_friendly_name: kind.friendly,
    url,
    job_metadata: JSON.stringify(metadata, null, 4),
    url_base: base,
    // Approval notifications are about their workflow job: its address is theirs.
    ...(kind.workflowUrl && { workflow_url: url }),
    ...facts.extra_context,
  };
}
