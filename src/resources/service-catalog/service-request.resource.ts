import { badRequest, conflict } from '../../api/errors.ts';
import { choice, datetime, json, ref, text } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import type { Queryable } from '../../db/database.ts';
import type { ServiceRequestRow, UnifiedJobRow } from '../../db/tables.ts';
import { DELETABLE_REQUESTS, serviceRequestAccess } from './catalog-access.ts';
import { shownAnswers, shownNodeAnswers } from './catalog-answers.ts';

export const REQUEST_STATUSES = ['pending_approval', 'approved', 'rejected', 'running', 'successful', 'failed', 'canceled'] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

/** The statuses a request may be deleted in (withdrawn or cleared): it launched nothing. */

const readOnly = { readOnly: true } as const;
const TRUE = new Set(['true', 'True', '1']);
const FALSE = new Set(['false', 'False', '0']);

type RunSummary = Pick<UnifiedJobRow, 'id' | 'name' | 'status' | 'failed' | 'elapsed' | 'kind'>;

async function loadRuns(db: Queryable, rows: readonly ServiceRequestRow[]): Promise<Map<number, RunSummary>> {
  const ids = rows.map((r) => r.unified_job_id).filter((id): id is number => id !== null);
  if (!ids.length) return new Map();
  const runs = await db.query<RunSummary>('SELECT id, name, status, failed, elapsed, kind FROM unified_jobs WHERE id = ANY($1::int[])', [ids]);
  return new Map(runs.map((r) => [r.id, r]));
}

/** What was asked of a catalog item, who decided it, and the run it launched, whose end it follows. */
export const serviceRequests = defineResource<ServiceRequestRow>({
  name: 'service_request',
  table: 'service_requests',
  label: 'Service Request List',
  description: 'A request to launch a service catalog item with answers to its survey; approved or rejected when the item asks for approval, it then follows the run it launched.',
  operations: { create: false, update: false, delete: true },
  fields: {
    catalog_item: ref('service_catalog_item', readOnly),
    organization: ref('organization', readOnly),
    requester: ref('user', readOnly),
    status: choice([
      ['pending_approval', 'Pending Approval'], ['approved', 'Approved'], ['rejected', 'Rejected'], ['running', 'Running'],
      ['successful', 'Successful'], ['failed', 'Failed'], ['canceled', 'Canceled'],
    ], { readOnly: true, helpText: 'Filter status=pending for pending_approval.' }),
    extra_vars: json({ readOnly: true, helpText: 'Answers to the survey of the template; answers to password questions read $encrypted$.' }),
    node_survey_data: json({ readOnly: true, helpText: "A workflow's answers to its nodes' surveys, by node identifier." }),
    justification: text(readOnly),
    decided_by: ref('user', readOnly),
    decided_at: datetime({ readOnly: true, nullable: true }),
    reason: text({ readOnly: true, helpText: 'Why the request was rejected.' }),
    unified_job: ref('unified_job', readOnly),
    refusal_detail: text({ readOnly: true, helpText: 'Why the launch was refused (a launch gate, a template that cannot start without input).' }),
    refusal_reasons: json({ readOnly: true, default: [] }),
  },
  search: ['justification', 'reason'],
  ordering: '-id',
  summaryColumns: ['id', 'status'],
  queryFilters: {
    // status=pending is pending_approval (the specification's word).
    status: (value, alias, params) => `${alias}.status = ${params.add(value === 'pending' ? 'pending_approval' : value)}`,
    mine: (value, alias, params, ctx) => {
      const user = params.add(ctx.user?.id ?? 0);
      if (TRUE.has(value)) return `${alias}.requester_id = ${user}`;
      if (FALSE.has(value)) return `${alias}.requester_id IS DISTINCT FROM ${user}`;
      throw badRequest('mine takes true or false.');
    },
  },
  access: serviceRequestAccess,
  hooks: {
    beforeDelete: (_tx, _ctx, row) => {
      if (!DELETABLE_REQUESTS.includes(row.status)) throw conflict(`Cannot delete a service request that is ${row.status}: only pending_approval or rejected requests can be deleted.`);
    },
  },
  prepare: (db, rows) => loadRuns(db, rows),
  decorate: (row, out, prepared) => {
    const url = `/api/v2/service_requests/${row.id}/`;
    out.extra_vars = shownAnswers(row.extra_vars);
    out.node_survey_data = shownNodeAnswers(row.node_survey_data);
    out.related = { ...out.related, approve: `${url}approve/`, reject: `${url}reject/` };
    const run = row.unified_job_id === null ? undefined : (prepared as Map<number, RunSummary> | undefined)?.get(row.unified_job_id);
    if (run) {
      out.summary_fields.unified_job = { id: run.id, name: run.name, status: run.status, failed: run.failed, elapsed: Number(run.elapsed), type: run.kind };
      out.related.unified_job = `/api/v2/${run.kind}s/${run.id}/`;
    }
  },
});
