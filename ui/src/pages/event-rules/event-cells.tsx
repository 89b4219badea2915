import { Link } from 'react-router';
import { Label } from '@patternfly/react-core';
import type { ResourceObject, FieldOf } from '../../api/types';
import type { Column } from '../../resources/types';
import { formatDate, StatusLabel } from '../../components/cells';
import { useOptions } from '../../hooks/api-hooks';

type Color = 'green' | 'red' | 'blue' | 'orange' | 'orangered' | 'grey' | 'purple' | 'teal';

const STATUS_COLORS: Record<FieldOf<'event_logs', 'status'>, Color> = {
  received: 'purple',
  matched: 'teal',
  unmatched: 'grey',
  throttled: 'orange',
  action_fired: 'green',
  action_failed: 'red',
  error: 'red',
  signature_failed: 'orangered',
};

/** What became of an event, coloured: fired green, failures red, refused signatures orange-red. */
export function EventStatusLabel({ status }: { status: unknown }) {
  return <StatusLabel status={status} colors={STATUS_COLORS} />;
}

/** A source type by its label (the choices OPTIONS gives), else as stored. */
export function SourceType({ value }: { value: unknown }) {
  const options = useOptions('/api/v2/event_rules/');
  const choices = options.data?.actions?.GET?.source_type?.choices ?? [];
  return <>{choices.find(([v]) => v === value)?.[1] ?? String(value ?? '–')}</>;
}

export function EnabledLabel({ enabled }: { enabled: unknown }) {
  return <Label isCompact color={enabled ? 'green' : 'grey'} data-enabled={String(!!enabled)}>{enabled ? 'Enabled' : 'Disabled'}</Label>;
}

/** The rule of an event log, linked while it exists; its name as the log kept it once deleted. */
export function RuleOfLog({ log }: { log: ResourceObject<'event_logs'> }) {
  const rule = log.summary_fields?.event_rule as { id?: number; name?: string } | undefined;
  const name = String(rule?.name ?? log.event_rule_name ?? '');
  if (log.event_rule && rule?.id) return <Link to={`/event_rules/${rule.id}`}>{name}</Link>;
  return <>{name ? `${name} (deleted)` : '–'}</>;
}

export const sourceTypeColumn: Column = { field: 'source_type', label: 'Source type', sort: true, wide: true, render: (o) => <SourceType value={o.source_type} /> };
export const enabledColumn: Column = { field: 'enabled', label: 'Enabled', sort: true, render: (o) => <EnabledLabel enabled={o.enabled} /> };
export const fireCountColumn: Column = { field: 'fire_count', label: 'Fired', sort: true, wide: true };

export const logReceivedColumn: Column<ResourceObject<'event_logs'>> = {
  field: 'created',
  label: 'Received',
  sort: 'id',
  render: (o) => <Link to={`/event_logs/${o.id}`}>{formatDate(o.created)}</Link>,
};
export const logStatusColumn: Column<ResourceObject<'event_logs'>> = { field: 'status', label: 'Status', sort: true, render: (o) => <EventStatusLabel status={o.status} /> };
export const logRuleColumn: Column<ResourceObject<'event_logs'>> = { field: 'event_rule', label: 'Rule', sort: 'event_rule_name', render: (o) => <RuleOfLog log={o} /> };
export const logEventTypeColumn: Column<ResourceObject<'event_logs'>> = { field: 'event_type', label: 'Type', sort: true, render: (o) => String(o.event_type || '–') };
export const logSourceIpColumn: Column<ResourceObject<'event_logs'>> = { field: 'source_ip', label: 'Source IP', wide: true, render: (o) => <span className="drover-mono">{String(o.source_ip || '–')}</span> };
export const logGuidColumn: Column<ResourceObject<'event_logs'>> = {
  field: 'event_guid',
  label: 'GUID',
  wide: true,
  render: (o) => {
    const guid = String(o.event_guid ?? '');
    return <span className="drover-mono" title={guid}>{guid.length > 16 ? `${guid.slice(0, 16)}…` : guid || '–'}</span>;
  },
};
