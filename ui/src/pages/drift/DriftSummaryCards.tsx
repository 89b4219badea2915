import { useQuery } from '@tanstack/react-query';
import { Card, CardBody, CardTitle, Gallery } from '@patternfly/react-core';
import { ErrorAlert } from '../../components/ErrorAlert';
import { SEVERITIES, fetchSummary, summaryUrl } from './drift-api';
import { SeverityLabel } from './DriftLabels';

const DAYS = 7;

/** Counts of the last week's drift the user may see: all, not yet acknowledged, and by severity. */
export function DriftSummaryCards() {
  const summary = useQuery({ queryKey: [summaryUrl(DAYS)], queryFn: () => fetchSummary(DAYS), refetchInterval: 15_000 });
  if (summary.error) return <ErrorAlert error={summary.error} title="The drift summary did not load" />;
  const data = summary.data;
  const count = (value: number | undefined) => (value === undefined ? '…' : String(value));
  return (
    <Gallery role="group" hasGutter minWidths={{ default: '10rem' }} aria-label={`Drift of the last ${DAYS} days`} style={{ marginBottom: '1rem' }}>
      <Count name="total" title={`Drift, last ${DAYS} days`} value={count(data?.total)} note={data ? `${data.total_hosts_with_drift} hosts` : undefined} />
      <Count name="unacknowledged" title="Unacknowledged" value={count(data?.unacknowledged)} />
      {SEVERITIES.map((severity) => (
        <Count key={severity} name={severity} title={<SeverityLabel severity={severity} />} value={count(data?.by_severity[severity])} />
      ))}
    </Gallery>
  );
}

function Count({ name, title, value, note }: { name: string; title: React.ReactNode; value: string; note?: string }) {
  return (
    <Card isCompact data-summary={name}>
      <CardTitle>{title}</CardTitle>
      <CardBody>
        <span style={{ fontSize: '1.5rem', fontWeight: 600 }} data-count>{value}</span>
        {note && <span className="drover-subtle"> · {note}</span>}
      </CardBody>
    </Card>
  );
}
