import { Link } from 'react-router';
import { Label } from '@patternfly/react-core';
import type { LabelProps } from '@patternfly/react-core';
import type { ResourceObject, FieldOf } from '../../api/types';
import type { Column } from '../../resources/types';
import { formatDate, StatusLabel } from '../../components/cells';

const SYNC_COLORS: Record<FieldOf<'policies', 'sync_state'>, LabelProps['color']> = { pending: 'blue', synced: 'green', failed: 'red' };
const DECISION_COLORS: Record<FieldOf<'policy_decisions', 'decision'>, LabelProps['color']> = { warn: 'orange', deny: 'red' };

/** Whether the engine has the saved text (its upload happens after the save, docs/policy.md). */
export function SyncStatus({ object }: { object: ResourceObject<'policies'> }) {
  return <span title={String(object.sync_error || '')}><StatusLabel status={object.sync_state} colors={SYNC_COLORS} /></span>;
}

export function DecisionLabel({ decision }: { decision: unknown }) {
  return <StatusLabel status={decision} colors={DECISION_COLORS} />;
}

export const syncColumn: Column<ResourceObject<'policies'>> = { field: 'sync_state', label: 'Sync', render: (o) => <SyncStatus object={o} /> };
export const enforcementColumn: Column<ResourceObject<'policies'>> = { field: 'enforcement', label: 'Enforcement', sort: true, render: (o) => <Label isCompact>{String(o.enforcement)}</Label> };
export const triggerColumn: Column<ResourceObject<'policies'>> = { field: 'trigger_count', label: 'Triggered', sort: true, wide: true };

export const decisionCreatedColumn: Column<ResourceObject<'policy_decisions'>> = {
  field: 'created', label: 'When', sort: 'id', render: (o) => <Link to={`/policy_decisions/${o.id}`}>{formatDate(o.created)}</Link>,
};
export const decisionColumn: Column<ResourceObject<'policy_decisions'>> = { field: 'decision', label: 'Decision', sort: true, render: (o) => <DecisionLabel decision={o.decision} /> };
export const decisionPolicyColumn: Column<ResourceObject<'policy_decisions'>> = {
  field: 'policy_name', label: 'Policy', sort: true,
  render: (o) => (o.policy ? <Link to={`/policies/${o.policy}`}>{String(o.policy_name)}</Link> : String(o.policy_name)),
};
export const decisionResourceColumn: Column<ResourceObject<'policy_decisions'>> = { field: 'resource_type', label: 'Launch of', wide: true, render: (o) => String(o.resource_type).replace(/_/g, ' ') };
export const decisionMessageColumn: Column<ResourceObject<'policy_decisions'>> = { field: 'message', label: 'Message', wide: true };
