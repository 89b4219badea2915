import { Link } from 'react-router';
import { Label, type LabelProps } from '@patternfly/react-core';
import type { FieldOf, ResourceObject } from '../../api/types';
import type { Column } from '../../resources/types';
import { formatDate, StatusLabel } from '../../components/cells';
import { ScanSeverity } from '../../components/ScanFindings';
import { ScannerEnabledSwitch } from './ScannerEnabledSwitch';

type Scanner = ResourceObject<'scanners'>;
type ScanResult = ResourceObject<'scan_results'>;

const SCAN_COLORS: Record<FieldOf<'scan_results', 'status'>, LabelProps['color']> = { ok: 'green', warn: 'orange', blocked: 'red', timeout: 'purple', error: 'red' };

export function ScanStatus({ status }: { status: unknown }) {
  return <StatusLabel status={status} colors={SCAN_COLORS} />;
}

/** A scanner's organization, or Global for one that reads every organization's launches. */
export function ScannerScope({ scanner }: { scanner: Pick<Scanner, 'organization' | 'summary_fields'> }) {
  const organization = scanner.summary_fields?.organization as { id: number; name?: string } | undefined;
  if (!scanner.organization) return <Label isCompact color="purple">Global</Label>;
  return <Link to={`/organizations/${scanner.organization}`}>{organization?.name ?? `#${scanner.organization}`}</Link>;
}

/** The run a scan result belongs to: a job when a template was launched, else an ad hoc command; a refused launch left none. */
export function ScannedRun({ result }: { result: ScanResult }) {
  if (!result.unified_job) return <>{result.status === 'blocked' ? 'none (launch refused)' : '–'}</>;
  const segment = result.unified_job_template ? 'jobs' : 'ad_hoc_commands';
  return <Link to={`/${segment}/${result.unified_job}/scan`}>#{result.unified_job}</Link>;
}

export function ScannerOfResult({ result }: { result: Pick<ScanResult, 'scanner' | 'scanner_name'> }) {
  return result.scanner ? <Link to={`/scanners/${result.scanner}`}>{result.scanner_name}</Link> : <>{`${result.scanner_name} (deleted)`}</>;
}

export const scannerColumns: Column<Scanner>[] = [
  { field: 'name', label: 'Name', sort: true, render: (o) => <Link to={`/scanners/${o.id}`}>{o.name}</Link> },
  { field: 'tool', label: 'Tool', sort: true, render: (o) => <span className="drover-mono">{o.tool}</span> },
  { field: 'organization', label: 'Organization', sort: 'organization__name', render: (o) => <ScannerScope scanner={o} /> },
  { field: 'enforcement', label: 'Enforcement', sort: true, render: (o) => <Label isCompact color={o.enforcement === 'enforce' ? 'red' : 'orange'}>{o.enforcement}</Label> },
  { field: 'severity_threshold', label: 'Threshold', sort: true, wide: true, render: (o) => <ScanSeverity severity={o.severity_threshold} /> },
  { field: 'enabled', label: 'Enabled', sort: true, render: (o) => <ScannerEnabledSwitch scanner={o} /> },
];

export const scanResultColumns: Column<ScanResult>[] = [
  { field: 'created', label: 'When', sort: 'id', render: (o) => <Link to={`/scan_results/${o.id}`}>{formatDate(o.created)}</Link> },
  { field: 'status', label: 'Status', sort: true, render: (o) => <ScanStatus status={o.status} /> },
  { field: 'scanner_name', label: 'Scanner', sort: true, render: (o) => <><ScannerOfResult result={o} /> <span className="pf-v6-u-color-200">({o.tool})</span></> },
  { field: 'unified_job', label: 'Run', render: (o) => <ScannedRun result={o} /> },
  { field: 'playbook', label: 'Playbook', sort: true, wide: true, render: (o) => <span className="drover-mono">{o.playbook || '–'}</span> },
  { field: 'finding_count', label: 'Findings', sort: true, render: (o) => `${o.finding_count}${o.blocking_count ? ` (${o.blocking_count} blocking)` : ''}` },
  { field: 'summary', label: 'Summary', wide: true },
];
