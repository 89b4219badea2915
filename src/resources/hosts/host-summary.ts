import type { SerializedObject } from '../../api/resource.ts';
import type { Queryable } from '../../db/database.ts';
import type { HostRow, UnifiedJobRow } from '../../db/tables.ts';

/** What a host shows of its last job. */
type JobSummaryRow = Pick<UnifiedJobRow, 'id' | 'name' | 'description' | 'finished' | 'status' | 'failed'>;

/** What a page of hosts shows beyond its columns, loaded in two queries for the whole page. */
interface HostExtras {
  groups: Map<number, { count: number; results: { id: number; name: string }[] }>;
  jobs: Map<number, JobSummaryRow>;
}

const SHOWN_GROUPS = 5;

export async function prepareHosts(db: Queryable, rows: readonly HostRow[]): Promise<HostExtras> {
  const ids = rows.map((r) => r.id);
  const jobIds = [...new Set(rows.map((r) => r.last_job_id).filter((id): id is number => typeof id === 'number'))];
  const [memberships, jobs] = await Promise.all([
    db.query<{ host_id: number; id: number; name: string; total: number }>(
      `SELECT host_id, id, name, total FROM (
         SELECT gh.host_id, g.id, g.name, count(*) OVER (PARTITION BY gh.host_id)::int AS total,
                row_number() OVER (PARTITION BY gh.host_id ORDER BY g.id) AS position
         FROM group_hosts gh JOIN groups g ON g.id = gh.group_id WHERE gh.host_id = ANY($1::integer[])) AS ranked
       WHERE position <= ${SHOWN_GROUPS} ORDER BY host_id, id`,
      [ids],
    ),
    jobIds.length
      ? db.query<JobSummaryRow>('SELECT id, name, description, finished, status, failed FROM unified_jobs WHERE id = ANY($1::integer[])', [jobIds])
      : Promise.resolve([]),
  ]);
  const groups: HostExtras['groups'] = new Map();
  for (const m of memberships) {
    let entry = groups.get(m.host_id);
    if (!entry) groups.set(m.host_id, (entry = { count: m.total, results: [] }));
    entry.results.push({ id: m.id, name: m.name });
  }
  return { groups, jobs: new Map(jobs.map((j) => [j.id, j])) };
}

/** Links and summaries of a host: its groups (the first five by id, and how many), its last job, its facts and variables. */
export function decorateHost(row: HostRow, out: SerializedObject, prepared?: unknown): void {
  const extras = prepared as HostExtras | undefined;
  const base = `/api/v2/hosts/${row.id}/`;
  Object.assign(out.related, { variable_data: `${base}variable_data/`, ansible_facts: `${base}ansible_facts/`, ad_hoc_commands: `${base}ad_hoc_commands/`,
    job_events: `${base}job_events/`, job_host_summaries: `${base}job_host_summaries/` });
  if (row.last_job_id !== null) out.related.last_job = `/api/v2/jobs/${row.last_job_id}/`;
  if (row.last_job_host_summary_id !== null) out.related.last_job_host_summary = `/api/v2/job_host_summaries/${row.last_job_host_summary_id}/`;
  // A host of a constructed inventory names the input host it was made from (AWX: original_host, whose facts it shows).
  const inventory = out.summary_fields.inventory as { kind?: string } | undefined;
  if (inventory?.kind === 'constructed' && /^\d+$/.test(row.instance_id)) {
    out.related.original_host = `/api/v2/hosts/${row.instance_id}/`;
    out.related.ansible_facts = `/api/v2/hosts/${row.instance_id}/ansible_facts/`;
  }
  out.summary_fields.groups = extras?.groups.get(row.id) ?? { count: 0, results: [] };
  const job = row.last_job_id === null ? undefined : extras?.jobs.get(row.last_job_id);
  if (job) {
    out.summary_fields.last_job = {
      id: job.id,
      name: job.name,
      description: job.description,
      finished: job.finished instanceof Date ? job.finished.toISOString() : job.finished,
      status: job.status,
      failed: job.failed,
      license_error: false,
    };
  }
}
