import { useState } from 'react';
import { Link } from 'react-router';
import { DescriptionList, ExpandableSection, Flex, FlexItem, PageSection, Title } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import type { ResourceObject } from '../../api/types';
import type { ResourceConfig } from '../../resources/types';
import { Breadcrumbs } from '../../components/Breadcrumbs';
import { useObject } from '../../hooks/api-hooks';
import { formatDate } from '../../components/cells';
import { EventStatusLabel, RuleOfLog, SourceType } from './event-cells';
import { ActionOutcomesTable, ConditionResultsTable } from './ResultTables';
import { JsonTree } from './JsonTree';
import { DetailItem, DetailSection } from './DetailItem';
import type { ActionOutcome, ConditionResult } from './event-rules-api';
import './event-rules.css';

const list = <T,>(value: unknown): T[] => (Array.isArray(value) ? (value as T[]) : []);

/** Payloads up to this size (as JSON text) start open. */
const OPEN_PAYLOAD = 64 * 1024;

/** One received event: where it came from, what each condition made of it, what its actions did, and its payload and headers. */
export default function EventLogPage({ object, config }: { object: ResourceObject<'event_logs'>; config: ResourceConfig }) {
  // The page's own query, read again until the event has been evaluated.
  useObject(object.url, object.status === 'received' ? 2_000 : false);
  const organization = object.summary_fields?.organization as { id: number; name?: string } | undefined;
  const conditionsMatched = object.conditions_matched === null || object.conditions_matched === undefined ? '–' : object.conditions_matched ? 'Yes' : 'No';
  const headers = (object.headers && typeof object.headers === 'object' ? object.headers : {}) as Record<string, unknown>;
  const payloadSize = new TextEncoder().encode(JSON.stringify(object.payload) ?? '').length;
  const title = `${String(object.event_type || 'Event')} #${object.id}`;
  return (
    <>
      <PageSection>
        <Breadcrumbs config={config} object={{ ...object, name: title }} />
        <Flex alignItems={{ default: 'alignItemsCenter' }} spaceItems={{ default: 'spaceItemsMd' }}>
          <FlexItem>
            <Title headingLevel="h1">{title}</Title>
          </FlexItem>
          <FlexItem>
            <EventStatusLabel status={object.status} />
          </FlexItem>
        </Flex>
      </PageSection>
      <PageSection>
        <DescriptionList isCompact columnModifier={{ default: '1Col', md: '2Col', xl: '3Col' }} aria-label="Details">
          <DetailItem name="event_rule" term="Rule"><RuleOfLog log={object} /></DetailItem>
          <DetailItem name="organization" term="Organization">{organization ? <Link to={`/organizations/${organization.id}`}>{organization.name}</Link> : '–'}</DetailItem>
          <DetailItem name="status" term="Status"><EventStatusLabel status={object.status} /></DetailItem>
          <DetailItem name="created" term="Received">{formatDate(object.created)}</DetailItem>
          <DetailItem name="processed_at" term="Processed">{object.processed_at ? formatDate(object.processed_at) : 'Not yet'}</DetailItem>
          <DetailItem name="source_type" term="Source type"><SourceType value={object.source_type} /></DetailItem>
          <DetailItem name="source_ip" term="Source IP"><span className="drover-mono">{String(object.source_ip || '–')}</span></DetailItem>
          <DetailItem name="event_type" term="Event type">{String(object.event_type || '–')}</DetailItem>
          <DetailItem name="event_guid" term="Event GUID"><span className="drover-mono" style={{ overflowWrap: 'anywhere' }}>{String(object.event_guid || '–')}</span></DetailItem>
          <DetailItem name="conditions_matched" term="Conditions matched">{conditionsMatched}</DetailItem>
          <DetailItem name="job_id" term="Job">{runLink(object)}</DetailItem>
        </DescriptionList>
        <DetailSection title="Conditions">
          {object.status === 'signature_failed' ? (
            <p className="drover-subtle">Not evaluated: the signature did not verify.</p>
          ) : object.status === 'received' ? (
            <p className="drover-subtle">Waiting to be evaluated.</p>
          ) : object.conditions_matched === null || object.conditions_matched === undefined ? (
            <p className="drover-subtle">Not evaluated.</p>
          ) : (
            <ConditionResultsTable results={list<ConditionResult>(object.condition_results)} label="Condition results" />
          )}
        </DetailSection>
        <DetailSection title="Actions">
          <ActionOutcomesTable outcomes={list<ActionOutcome>(object.actions_triggered)} />
        </DetailSection>
        <DetailSection title="Payload">
          <Collapsible name="payload" initiallyOpen={payloadSize <= OPEN_PAYLOAD} size={payloadSize}>
            <JsonTree value={object.payload ?? null} label="Payload" />
          </Collapsible>
        </DetailSection>
        <DetailSection title="Headers">
          <HeadersTable headers={headers} />
        </DetailSection>
      </PageSection>
    </>
  );
}

function Collapsible({ name, initiallyOpen, size, children }: { name: string; initiallyOpen: boolean; size: number; children: React.ReactNode }) {
  const [open, setOpen] = useState(initiallyOpen);
  return (
    <ExpandableSection toggleTextCollapsed={`Show ${name} (${size.toLocaleString()} bytes)`} toggleTextExpanded={`Hide ${name}`} isExpanded={open} onToggle={(_e, next) => setOpen(next)}>
      {children}
    </ExpandableSection>
  );
}

/** The page of the run the log's job_id names: the action that started it says which kind it is. */
function runLink(log: ResourceObject<'event_logs'>) {
  const id = Number(log.job_id);
  if (!id) return '–';
  const workflow = list<ActionOutcome>(log.actions_triggered).some((o) => o.workflow_job === id);
  return <Link to={`/${workflow ? 'workflow_jobs' : 'jobs'}/${id}`}>{`${workflow ? 'Workflow job' : 'Job'} ${id}`}</Link>;
}

function HeadersTable({ headers }: { headers: Record<string, unknown> }) {
  const entries = Object.entries(headers);
  if (!entries.length) return <p className="drover-subtle">No headers were kept.</p>;
  return (
    <Table aria-label="Headers" variant="compact">
      <Thead>
        <Tr><Th>Name</Th><Th>Value</Th></Tr>
      </Thead>
      <Tbody>
        {entries.map(([name, value]) => (
          <Tr key={name}>
            <Td dataLabel="Name"><span className="drover-mono">{name}</span></Td>
            <Td dataLabel="Value"><span className="drover-mono" style={{ overflowWrap: 'anywhere' }}>{typeof value === 'string' ? value : JSON.stringify(value)}</span></Td>
          </Tr>
        ))}
      </Tbody>
    </Table>
  );
}
