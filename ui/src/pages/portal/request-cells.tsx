import { Link } from 'react-router';
import type { LabelProps } from '@patternfly/react-core';
import type { FieldOf, ResourceObject } from '../../api/types';
import type { Column } from '../../resources/types';
import { StatusLabel, formatDate } from '../../components/cells';
import { runPath } from '../../resources/run-paths';

export type ServiceRequest = ResourceObject<'service_requests'>;
type RequestStatus = FieldOf<'service_requests', 'status'>;

const REQUEST_COLORS: Record<RequestStatus, LabelProps['color']> = {
  pending_approval: 'purple',
  approved: 'blue',
  rejected: 'orange',
  running: 'blue',
  successful: 'green',
  failed: 'red',
  canceled: 'orange',
};

/** Statuses a request leaves by itself (its run goes on, an approver decides). */
const ACTIVE: ReadonlySet<RequestStatus> = new Set(['approved', 'running']);
const WAITING: ReadonlySet<RequestStatus> = new Set(['pending_approval']);

/**
 * How often to read requests again: often while one's run goes on, now and then while one waits for
 * an approver, never once all have ended.
 */
export function requestRefetch(requests: readonly Pick<ServiceRequest, 'status'>[] | undefined): number | false {
  if (requests?.some((r) => ACTIVE.has(r.status))) return 2_000;
  if (requests?.some((r) => WAITING.has(r.status))) return 15_000;
  return false;
}

export const RequestStatusLabel = ({ status }: { status: RequestStatus }) => <StatusLabel status={status} colors={REQUEST_COLORS} />;

interface Named { id?: number; name?: string; username?: string }
const summary = (r: ServiceRequest, field: string) => (r.summary_fields as Record<string, Named | undefined>)[field];

/** The run a request launched, linked to its output page, with its own status. */
export function RequestRun({ request }: { request: ServiceRequest }) {
  const run = summary(request, 'unified_job') as (Named & { type?: string; status?: string }) | undefined;
  if (!run?.id) return <>–</>;
  return (
    <span className="drover-request-run">
      <Link to={runPath({ id: run.id, type: String(run.type ?? 'job') })}>{`${run.id} - ${run.name ?? ''}`}</Link>{' '}
      <StatusLabel status={run.status} />
    </span>
  );
}

export const itemName = (r: ServiceRequest) => summary(r, 'catalog_item')?.name ?? (r.catalog_item ? `#${r.catalog_item}` : 'Deleted item');

export const requestIdColumn: Column<ServiceRequest> = { field: 'id', label: 'ID', sort: true, render: (r) => <Link to={`/service_requests/${r.id}`}>{`#${r.id}`}</Link> };
export const requestItemColumn: Column<ServiceRequest> = {
  field: 'catalog_item',
  label: 'Item',
  sort: 'catalog_item__name',
  render: (r) => (r.catalog_item ? <Link to={`/catalog/${r.catalog_item}`}>{itemName(r)}</Link> : itemName(r)),
};
export const requestStatusColumn: Column<ServiceRequest> = { field: 'status', label: 'Status', sort: true, render: (r) => <RequestStatusLabel status={r.status} /> };
export const requestRunColumn: Column<ServiceRequest> = { field: 'unified_job', label: 'Run', render: (r) => <RequestRun request={r} /> };
export const requestCreatedColumn: Column<ServiceRequest> = { field: 'created', label: 'Requested', sort: true, wide: true, render: (r) => formatDate(r.created) };
export const requesterColumn: Column<ServiceRequest> = { field: 'requester', label: 'Requester', sort: 'requester__username', render: (r) => summary(r, 'requester')?.username ?? '–' };
export const justificationColumn: Column<ServiceRequest> = { field: 'justification', label: 'Justification', wide: true, render: (r) => r.justification || '–' };
/** Why the request ended without a run going on: the approver's reason, or the launch's refusal. */
export const outcomeColumn: Column<ServiceRequest> = {
  field: 'reason',
  label: 'Note',
  wide: true,
  render: (r) => (r.status === 'rejected' ? (r.reason ? `Rejected: ${r.reason}` : 'Rejected') : r.refusal_detail ? `Not launched: ${r.refusal_detail}` : '–'),
};
