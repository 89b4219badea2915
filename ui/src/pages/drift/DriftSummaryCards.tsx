import { useQuery } from '@tanstack/react-query';
import { Card, CardBody, CardTitle, Flex, FlexItem, Grid, GridItem } from '@patternfly/react-core';
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
    <Grid role="group" hasGutter md={6} xl={3} aria-label={`Drift of the last ${DAYS} days`} style={{ marginBottom: '1rem' }}>
      <GridItem>
        <Card isCompact isFullHeight data-summary="total">
          <CardTitle>Drift, last {DAYS} days</CardTitle>
          <CardBody>
            <Figure value={count(data?.total)} />
            {data && <span className="drover-subtle"> on {data.total_hosts_with_drift === 1 ? '1 host' : `${data.total_hosts_with_drift} hosts`}</span>}
          </CardBody>
        </Card>
      </GridItem>
      <GridItem>
        <Card isCompact isFullHeight data-summary="unacknowledged">
          <CardTitle>Unacknowledged</CardTitle>
          <CardBody>
            <Figure value={count(data?.unacknowledged)} />
          </CardBody>
        </Card>
      </GridItem>
      <GridItem md={12} xl={6}>
        <Card isCompact isFullHeight>
          <CardTitle>By severity</CardTitle>
          <CardBody>
            <Flex spaceItems={{ default: 'spaceItemsXl' }}>
              {SEVERITIES.map((severity) => (
                <FlexItem key={severity} data-summary={severity}>
                  <SeverityLabel severity={severity} /> <Figure value={count(data?.by_severity[severity])} />
                </FlexItem>
              ))}
            </Flex>
          </CardBody>
        </Card>
      </GridItem>
    </Grid>
  );
}

function Figure({ value }: { value: string }) {
  return <span className="drover-figure" data-count>{value}</span>;
}
