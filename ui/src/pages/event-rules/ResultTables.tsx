import { Link } from 'react-router';
import { Label } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { useQuery } from '@tanstack/react-query';
import { http } from '../../api/client';
import type { ResourceObject } from '../../api/types';
import { actionKind, type ActionOutcome, type ConditionResult } from './event-rules-api';

/** A condition's result as a word and a colour; an error counts as not matched. */
function ConditionLabel({ result }: { result: ConditionResult }) {
  if (result.error) return <Label isCompact color="red">Error</Label>;
  if (result.skipped) return <Label isCompact variant="outline">Not evaluated</Label>;
  return result.matched ? <Label isCompact color="green">Matched</Label> : <Label isCompact color="grey">Not matched</Label>;
}

/** Each condition's expression and result, with the error of those that failed to evaluate. */
export function ConditionResultsTable({ results, label }: { results: ConditionResult[]; label: string }) {
  if (!results.length) return <p className="drover-subtle">No conditions: every event matches.</p>;
  return (
    <Table aria-label={label} variant="compact">
      <Thead>
        <Tr>
          <Th width={10}>#</Th>
          <Th>Expression</Th>
          <Th>Description</Th>
          <Th>Result</Th>
          <Th>Error</Th>
        </Tr>
      </Thead>
      <Tbody>
        {results.map((r, i) => (
          <Tr key={i} data-result={r.error ? 'error' : r.skipped ? 'skipped' : r.matched ? 'matched' : 'not-matched'}>
            <Td dataLabel="#">{i + 1}</Td>
            <Td dataLabel="Expression"><span className="drover-mono">{r.expression}</span></Td>
            <Td dataLabel="Description">{r.description || '–'}</Td>
            <Td dataLabel="Result"><ConditionLabel result={r} /></Td>
            <Td dataLabel="Error">{r.error ? <span className="drover-error-text" data-condition-error>{r.error}</span> : '–'}</Td>
          </Tr>
        ))}
      </Tbody>
    </Table>
  );
}

/** An action's target by name, linked; its number alone when it is gone or hidden from the caller. */
export function ActionTarget({ type, id }: { type: unknown; id: unknown }) {
  const kind = actionKind(type);
  const url = kind && typeof id === 'number' ? `/api/v2/${kind.targets}/${id}/` : undefined;
  const target = useQuery({ queryKey: [url], queryFn: () => http.get<ResourceObject<'job_templates' | 'workflow_job_templates' | 'notification_templates'>>(url!), enabled: !!url, retry: false });
  if (!kind) return <>{`#${String(id)}`}</>;
  if (!target.data) return <>{`${kind.target} #${String(id)}`}</>;
  return <Link to={`/${kind.targets}/${String(id)}`}>{String(target.data.name ?? `#${String(id)}`)}</Link>;
}

/** What an action started: the job, workflow job or notification, linked. */
function Started({ outcome }: { outcome: ActionOutcome }) {
  if (outcome.job) return <Link to={`/jobs/${outcome.job}`}>Job {outcome.job}</Link>;
  if (outcome.workflow_job) return <Link to={`/workflow_jobs/${outcome.workflow_job}`}>Workflow job {outcome.workflow_job}</Link>;
  if (outcome.notification) return <Link to={`/notifications/${outcome.notification}`}>Notification {outcome.notification}</Link>;
  return <>–</>;
}

/** Each action a firing ran: what it targeted, whether it went through, what it started or why not. */
export function ActionOutcomesTable({ outcomes }: { outcomes: ActionOutcome[] }) {
  if (!outcomes.length) return <p className="drover-subtle">No action ran for this event.</p>;
  return (
    <Table aria-label="Actions triggered" variant="compact">
      <Thead>
        <Tr>
          <Th width={10}>#</Th>
          <Th>Type</Th>
          <Th>Target</Th>
          <Th>Description</Th>
          <Th>Outcome</Th>
          <Th>Started</Th>
          <Th>Error</Th>
        </Tr>
      </Thead>
      <Tbody>
        {outcomes.map((o, i) => (
          <Tr key={i} data-outcome={o.ok ? 'ok' : 'failed'}>
            <Td dataLabel="#">{i + 1}</Td>
            <Td dataLabel="Type">{actionKind(o.action_type)?.label ?? String(o.action_type)}</Td>
            <Td dataLabel="Target"><ActionTarget type={o.action_type} id={o.target_id} /></Td>
            <Td dataLabel="Description">{o.description || '–'}</Td>
            <Td dataLabel="Outcome">{o.ok ? <Label isCompact color="green">Done</Label> : <Label isCompact color="red">Failed</Label>}</Td>
            <Td dataLabel="Started"><Started outcome={o} /></Td>
            <Td dataLabel="Error">{o.error ? <span className="drover-error-text">{o.error}</span> : '–'}</Td>
          </Tr>
        ))}
      </Tbody>
    </Table>
  );
}
