import { useQueries } from '@tanstack/react-query';
import { Link } from 'react-router';
import { Card, CardBody, CardHeader, CardTitle, EmptyState, EmptyStateBody, Flex, FlexItem } from '@patternfly/react-core';
import { http } from '../../api/client';
import type { ResourceObject } from '../../api/types';
import { usePage } from '../../hooks/api-hooks';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { ScanFindingsTable, ScanSeverity, type ScanFinding } from '../../components/ScanFindings';
import type { Run } from '../runs/run-kinds';
import { ScannerOfResult, ScanStatus } from './scanner-cells';
import { useScannedSource } from './use-scanned-source';

type ScanResult = ResourceObject<'scan_results'>;
type ScanDetail = ScanResult & { findings?: ScanFinding[] };

/** A run's Scan tab: what each scanner found when it was launched (docs/scanners.md), with each finding. */
export default function RunScanTab({ run }: { run: Run }) {
  const results = usePage<ScanResult>(`/api/v2/scan_results/?unified_job=${run.id}&page_size=50`);
  const details = useQueries({
    queries: (results.data?.results ?? []).map((r) => ({ queryKey: [r.url], queryFn: () => http.get<ScanDetail>(r.url) })),
  });
  if (results.isPending) return <Loading />;
  if (results.error) return <ErrorAlert error={results.error} />;
  const list = results.data?.results ?? [];
  if (!list.length) {
    return (
      <EmptyState titleText="Not scanned" headingLevel="h2">
        <EmptyStateBody>No scanner read this run's files at its launch: scanning was off, or no enabled scanner applies to it.</EmptyStateBody>
      </EmptyState>
    );
  }
  return (
    <Flex direction={{ default: 'column' }} spaceItems={{ default: 'spaceItemsMd' }}>
      {list.map((result, i) => (
        <FlexItem key={result.id}>
          <ScanResultCard result={result} detail={details[i]?.data} error={details[i]?.error} />
        </FlexItem>
      ))}
    </Flex>
  );
}

function ScanResultCard({ result, detail, error }: { result: ScanResult; detail?: ScanDetail; error: unknown }) {
  const source = useScannedSource(result.project, result.scm_revision);
  const findings = detail?.findings;
  return (
    <Card isCompact aria-label={`Scan by ${result.scanner_name}`}>
      <CardHeader>
        <CardTitle>
          <Flex alignItems={{ default: 'alignItemsCenter' }} spaceItems={{ default: 'spaceItemsSm' }}>
            <FlexItem><ScannerOfResult result={result} /></FlexItem>
            <FlexItem className="drover-mono">{result.tool}</FlexItem>
            <FlexItem><ScanStatus status={result.status} /></FlexItem>
            <FlexItem>threshold <ScanSeverity severity={result.severity_threshold} />, {result.enforcement}</FlexItem>
            {result.cached && <FlexItem className="pf-v6-u-color-200">cached</FlexItem>}
            <FlexItem><Link to={`/scan_results/${result.id}`}>Result #{result.id}</Link></FlexItem>
          </Flex>
        </CardTitle>
      </CardHeader>
      <CardBody>
        <p style={{ marginBottom: '0.5rem' }}>{result.summary}</p>
        <ErrorAlert error={error} />
        {findings === undefined && !error ? <Loading /> : null}
        {findings && findings.length > 0 && <ScanFindingsTable findings={findings} source={source} label={`Findings of ${result.scanner_name}`} />}
      </CardBody>
    </Card>
  );
}
