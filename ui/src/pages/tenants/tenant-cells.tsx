import { Link } from 'react-router';
import type { FieldOf, ResourceObject } from '../../api/types';
import type { Column, ListFilter } from '../../resources/types';
import { StatusLabel, formatDate } from '../../components/cells';
import { runPath } from '../../resources/run-paths';
import { isUnlimited, QUOTA_KINDS, QUOTAS, type QuotaKind, type Tenant } from './tenant-types';

/** A quota decision, as the API answers it. */
export type QuotaEvent = ResourceObject<'tenant_quota_events'>;

const usageColumn = (kind: QuotaKind, label: string): Column<Tenant> => ({
  field: QUOTAS[kind].usage,
  label,
  wide: true,
  render: (t) => {
    const used = Number(t.usage?.[QUOTAS[kind].usage] ?? 0);
    const limit = t.quota?.[kind];
    return <span className="drover-nowrap" data-quota={kind}>{`${Number.isInteger(used) ? used : used.toFixed(2)} / ${isUnlimited(limit) ? 'Unlimited' : limit}`}</span>;
  },
});

export const tenantColumns: Column<Tenant>[] = [
  { field: 'name', label: 'Name', sort: 'organization__name', render: (t) => <Link to={`/tenants/${t.id}`}>{t.name}</Link> },
  { field: 'custom_domain', label: 'Custom domain', wide: true, render: (t) => t.branding?.custom_domain || '–' },
  usageColumn('max_concurrent_jobs', 'Running jobs'),
  usageColumn('max_daily_launches', 'Launches today'),
  usageColumn('max_hosts', 'Hosts'),
  usageColumn('max_storage_mb', 'Storage (MB)'),
];

interface Summary {
  id: number;
  name?: string;
  username?: string;
  type?: string;
}
const summaryOf = (e: QuotaEvent, field: 'organization' | 'unified_job' | 'user') => (e.summary_fields as Record<string, Summary | undefined>)[field];

const DECISION_COLORS = { allow: 'green', deny: 'red' } as const;
const DECISIONS: Record<FieldOf<'tenant_quota_events', 'decision'>, string> = { allow: 'Allowed', deny: 'Denied' };

/** Filter by decision, quota (named as the console names them) and time. */
export const quotaEventFilters: ListFilter[] = [
  { key: 'decision', label: 'Decision', choices: Object.entries(DECISIONS) },
  { key: 'quota_kind', label: 'Quota', choices: QUOTA_KINDS.map((kind) => [kind, QUOTAS[kind].label]) },
  { key: 'since', label: 'Since', input: 'datetime' },
];

export const quotaEventColumns: Column<QuotaEvent>[] = [
  { field: 'created', label: 'Time', sort: true, render: (e) => formatDate(e.created) },
  { field: 'decision', label: 'Decision', sort: true, render: (e) => <StatusLabel status={e.decision} colors={DECISION_COLORS} /> },
  { field: 'quota_kind', label: 'Quota', sort: true, render: (e) => QUOTAS[e.quota_kind]?.label ?? e.quota_kind },
  { field: 'usage', label: 'Usage / limit', render: (e) => `${e.usage} / ${e.limit}` },
  { field: 'organization', label: 'Organization', wide: true, render: (e) => {
      const organization = summaryOf(e, 'organization');
      return organization ? <Link to={`/organizations/${organization.id}`}>{organization.name}</Link> : '–';
    },
  },
  { field: 'action', label: 'Action', wide: true },
  {
    field: 'unified_job',
    label: 'Run',
    wide: true,
    render: (e) => {
      const run = summaryOf(e, 'unified_job');
      return run && run.type ? <Link to={runPath({ id: run.id, type: run.type })}>{run.name || `#${run.id}`}</Link> : '–';
    },
  },
  { field: 'user', label: 'User', wide: true, render: (e) => summaryOf(e, 'user')?.username ?? '–' },
  { field: 'message', label: 'Message', wide: true },
];
