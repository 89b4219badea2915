import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { Alert, Breadcrumb, BreadcrumbItem, DescriptionList, PageSection } from '@patternfly/react-core';
import { http } from '../../api/client';
import type { ResourceConfig } from '../../resources/types';
import { DetailHeader } from '../../components/DetailHeader';
import { RowActions } from '../../components/RowActions';
import { formatDate } from '../../components/cells';
import { DetailItem, DetailSection } from '../event-rules/DetailItem';
import { itemName, RequestRun, RequestStatusLabel, requestRefetch, type ServiceRequest } from './request-cells';
import './portal.css';

interface Named { id?: number; name?: string; username?: string }
const summaryOf = (r: ServiceRequest, field: string) => (r.summary_fields as Record<string, Named | undefined>)[field];
const answersText = (answers: unknown) => JSON.stringify(answers ?? {}, null, 2);
const isEmpty = (answers: unknown) => !answers || typeof answers !== 'object' || Object.keys(answers).length === 0;

/** A service request: its status followed while it goes on, who decided it and why, its answers and its run. */
export default function RequestPage({ object, config }: { object: ServiceRequest; config: ResourceConfig }) {
  const live = useQuery({
    queryKey: [object.url],
    queryFn: () => http.get<ServiceRequest>(object.url),
    initialData: object,
    refetchInterval: (query) => requestRefetch([query.state.data ?? object]),
  });
  const request = live.data;
  const decider = summaryOf(request, 'decided_by')?.username;
  const reasons = Array.isArray(request.refusal_reasons) ? request.refusal_reasons.map(String) : [];
  const nodes = (request.node_survey_data && typeof request.node_survey_data === 'object' ? Object.entries(request.node_survey_data) : []) as [string, unknown][];
  return (
    <>
      <PageSection>
        <Breadcrumb>
          <BreadcrumbItem render={() => <Link to="/my_requests">My requests</Link>} />
          <BreadcrumbItem isActive>{`Request #${request.id}`}</BreadcrumbItem>
        </Breadcrumb>
        <DetailHeader
          title={`Request #${request.id}: ${itemName(request)}`}
          labels={<RequestStatusLabel status={request.status} />}
          actions={<RowActions config={config} object={request} variant="detail" />}
        />
      </PageSection>
      <PageSection>
        {request.status === 'rejected' && (
          <Alert variant="warning" isInline title={`Rejected${decider ? ` by ${decider}` : ''}`} aria-label="Rejection">
            {request.reason || 'No reason was given.'}
          </Alert>
        )}
        {request.refusal_detail && (
          <Alert variant="danger" isInline title={`Not launched: ${request.refusal_detail}`} aria-label="Refusal">
            {reasons.length > 0 && <ul>{reasons.map((r) => <li key={r}>{r}</li>)}</ul>}
          </Alert>
        )}
        {request.status === 'pending_approval' && <Alert variant="info" isInline title="Waiting for an approver" />}
        <DescriptionList isCompact columnModifier={{ default: '1Col', md: '2Col' }} aria-label="Details">
          <DetailItem name="catalog_item" term="Item">{request.catalog_item ? <Link to={`/catalog/${request.catalog_item}`}>{itemName(request)}</Link> : itemName(request)}</DetailItem>
          <DetailItem name="status" term="Status"><RequestStatusLabel status={request.status} /></DetailItem>
          <DetailItem name="requester" term="Requester">{summaryOf(request, 'requester')?.username ?? '–'}</DetailItem>
          <DetailItem name="organization" term="Organization">{summaryOf(request, 'organization')?.name ?? '–'}</DetailItem>
          <DetailItem name="created" term="Requested">{formatDate(request.created)}</DetailItem>
          <DetailItem name="unified_job" term="Run"><RequestRun request={request} /></DetailItem>
          <DetailItem name="decided_by" term="Decided by">{decider ?? '–'}</DetailItem>
          <DetailItem name="decided_at" term="Decided">{formatDate(request.decided_at)}</DetailItem>
          <DetailItem name="justification" term="Justification"><span className="drover-catalog-description">{request.justification || '–'}</span></DetailItem>
          {request.reason && <DetailItem name="reason" term="Reason"><span className="drover-catalog-description">{request.reason}</span></DetailItem>}
        </DescriptionList>
        <DetailSection title="Answers">
          {isEmpty(request.extra_vars) ? <p>No answers.</p> : <pre className="drover-mono drover-request-answers">{answersText(request.extra_vars)}</pre>}
          {nodes.map(([node, answers]) => (
            <div key={node}>
              <strong>{`Step ${node}`}</strong>
              <pre className="drover-mono drover-request-answers">{answersText(answers)}</pre>
            </div>
          ))}
        </DetailSection>
      </PageSection>
    </>
  );
}
