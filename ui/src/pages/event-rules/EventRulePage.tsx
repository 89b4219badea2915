import { Suspense, lazy } from 'react';
import { Link } from 'react-router';
import { DescriptionList, LabelGroup, PageSection } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import type { ResourceObject } from '../../api/types';
import type { ResourceConfig } from '../../resources/types';
import { resourceConfig } from '../../resources/registry';
import { Breadcrumbs } from '../../components/Breadcrumbs';
import { DetailHeader } from '../../components/DetailHeader';
import { Loading } from '../../components/Loading';
import { ResourceList } from '../../components/ResourceList';
import { RoutedTabs } from '../../components/RoutedTabs';
import { RowActions } from '../../components/RowActions';
import { formatDate } from '../../components/cells';
import { EnabledLabel, SourceType } from './event-cells';
import { ActionTarget } from './ResultTables';
import { WebhookPanel } from './WebhookPanel';
import { DetailItem, DetailSection } from './DetailItem';
import { actionKind, actionsOf, conditionsOf, type EventRule } from './event-rules-api';
import './event-rules.css';

const ConditionTester = lazy(() => import('./ConditionTester'));

interface Named {
  id: number;
  name?: string;
  username?: string;
}

/** An event rule: its settings, webhook and key, conditions and actions; a condition tester; the events it received. */
export default function EventRulePage({ object, config }: { object: ResourceObject<'event_rules'>; config: ResourceConfig }) {
  const logs = resourceConfig('event_logs');
  return (
    <>
      <PageSection>
        <Breadcrumbs config={config} object={object} />
        <DetailHeader
          title={String(object.name)}
          labels={
            <LabelGroup aria-label="State">
              <EnabledLabel enabled={object.enabled} />
            </LabelGroup>
          }
          actions={<RowActions config={config} object={object} variant="detail" />}
        />
      </PageSection>
      <PageSection>
        <RoutedTabs
          base={`/${config.key}/${object.id}`}
          label="Event rule sections"
          tabs={[
            { key: 'details', label: 'Details', content: () => <RuleDetails rule={object} /> },
            {
              key: 'tester',
              label: 'Condition tester',
              content: () => (
                <Suspense fallback={<Loading />}>
                  <ConditionTester object={object} />
                </Suspense>
              ),
            },
            {
              key: 'event_logs',
              label: 'Event logs',
              content: () => (logs ? <ResourceList config={logs} url={object.related?.event_logs ?? `${object.url}event_logs/`} refetchInterval={5_000} /> : null),
            },
          ]}
        />
      </PageSection>
    </>
  );
}

function RuleDetails({ rule }: { rule: EventRule }) {
  const organization = rule.summary_fields?.organization as Named | undefined;
  const createdBy = rule.summary_fields?.created_by as Named | undefined;
  const modifiedBy = rule.summary_fields?.modified_by as Named | undefined;
  const throttle = Number(rule.throttle_seconds ?? 0);
  return (
    <>
      <DescriptionList isCompact columnModifier={{ default: '1Col', md: '2Col', xl: '3Col' }} aria-label="Details">
        <DetailItem name="description" term="Description">{String(rule.description || '–')}</DetailItem>
        <DetailItem name="organization" term="Organization">{organization ? <Link to={`/organizations/${organization.id}`}>{organization.name}</Link> : '–'}</DetailItem>
        <DetailItem name="source_type" term="Source type"><SourceType value={rule.source_type} /></DetailItem>
        <DetailItem name="webhook_path" term="Webhook path"><span className="drover-mono">{String(rule.webhook_path)}</span></DetailItem>
        <DetailItem name="throttle_seconds" term="Throttle">{throttle > 0 ? `At most one firing every ${throttle} s` : 'No limit'}</DetailItem>
        <DetailItem name="fire_count" term="Fired">{`${Number(rule.fire_count ?? 0)} time${Number(rule.fire_count) === 1 ? '' : 's'}`}</DetailItem>
        <DetailItem name="last_fired_at" term="Last fired">{rule.last_fired_at ? formatDate(rule.last_fired_at) : 'Never'}</DetailItem>
        <DetailItem name="created" term="Created">{`${formatDate(rule.created)}${createdBy?.username ? ` by ${createdBy.username}` : ''}`}</DetailItem>
        <DetailItem name="modified" term="Last modified">{`${formatDate(rule.modified)}${modifiedBy?.username ? ` by ${modifiedBy.username}` : ''}`}</DetailItem>
      </DescriptionList>
      <DetailSection title="Webhook">
        <WebhookPanel rule={rule} />
      </DetailSection>
      <DetailSection title="Conditions">
        <RuleConditions rule={rule} />
      </DetailSection>
      <DetailSection title="Actions">
        <RuleActions rule={rule} />
      </DetailSection>
    </>
  );
}

function RuleConditions({ rule }: { rule: EventRule }) {
  const conditions = conditionsOf(rule);
  if (!conditions.length) return <p className="drover-subtle">No conditions: every event fires the rule.</p>;
  return (
    <Table aria-label="Rule conditions" variant="compact">
      <Thead>
        <Tr><Th width={10}>#</Th><Th>Expression</Th><Th>Description</Th></Tr>
      </Thead>
      <Tbody>
        {conditions.map((c, i) => (
          <Tr key={i}>
            <Td dataLabel="#">{i + 1}</Td>
            <Td dataLabel="Expression"><span className="drover-mono">{c.jinja2_expression}</span></Td>
            <Td dataLabel="Description">{c.description || '–'}</Td>
          </Tr>
        ))}
      </Tbody>
    </Table>
  );
}

function RuleActions({ rule }: { rule: EventRule }) {
  return (
    <Table aria-label="Rule actions" variant="compact">
      <Thead>
        <Tr><Th width={10}>#</Th><Th>Type</Th><Th>Target</Th><Th>Extra variables</Th><Th>Description</Th></Tr>
      </Thead>
      <Tbody>
        {actionsOf(rule).map((a, i) => (
          <Tr key={i}>
            <Td dataLabel="#">{i + 1}</Td>
            <Td dataLabel="Type">{actionKind(a.action_type)?.label ?? String(a.action_type)}</Td>
            <Td dataLabel="Target"><ActionTarget type={a.action_type} id={a.target_id} /></Td>
            <Td dataLabel="Extra variables">
              {a.extra_vars && Object.keys(a.extra_vars).length ? <pre className="drover-json">{JSON.stringify(a.extra_vars, null, 2)}</pre> : '–'}
            </Td>
            <Td dataLabel="Description">{a.description || '–'}</Td>
          </Tr>
        ))}
      </Tbody>
    </Table>
  );
}
