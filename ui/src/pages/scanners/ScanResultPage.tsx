import { Link } from 'react-router';
import { DescriptionList, Flex, FlexItem, PageSection, Title } from '@patternfly/react-core';
import type { ResourceObject } from '../../api/types';
import type { ResourceConfig } from '../../resources/types';
import { Breadcrumbs } from '../../components/Breadcrumbs';
import { formatDate } from '../../components/cells';
import { ScanFindingsTable, ScanSeverity, type ScanFinding } from '../../components/ScanFindings';
import { DetailItem, DetailSection } from '../event-rules/DetailItem';
import { ScannedRun, ScannerOfResult, ScanStatus } from './scanner-cells';
import { useScannedSource } from './use-scanned-source';

type ScanResult = ResourceObject<'scan_results'> & { findings?: ScanFinding[] };

/** One scan: what the scanner read at which launch, what it decided, and each finding with a link to the rule and the file. */
export default function ScanResultPage({ object, config }: { object: ScanResult; config: ResourceConfig }) {
  const source = useScannedSource(object.project, object.scm_revision);
  const project = object.summary_fields?.project as { id: number; name?: string } | undefined;
  const title = `${object.scanner_name} #${object.id}`;
  const findings = object.findings ?? [];
  return (
    <>
      <PageSection>
        <Breadcrumbs config={config} object={{ ...object, name: title }} />
        <Flex alignItems={{ default: 'alignItemsCenter' }} spaceItems={{ default: 'spaceItemsMd' }}>
          <FlexItem><Title headingLevel="h1">{title}</Title></FlexItem>
          <FlexItem><ScanStatus status={object.status} /></FlexItem>
        </Flex>
      </PageSection>
      <PageSection>
        <DescriptionList isCompact columnModifier={{ default: '1Col', md: '2Col', xl: '3Col' }} aria-label="Details">
          <DetailItem name="scanner" term="Scanner"><ScannerOfResult result={object} /></DetailItem>
          <DetailItem name="tool" term="Tool">{object.tool}</DetailItem>
          <DetailItem name="created" term="When">{formatDate(object.created)}</DetailItem>
          <DetailItem name="unified_job" term="Run"><ScannedRun result={object} /></DetailItem>
          <DetailItem name="project" term="Project">{object.project ? <Link to={`/projects/${object.project}`}>{project?.name ?? `#${object.project}`}</Link> : '–'}</DetailItem>
          <DetailItem name="playbook" term="Playbook"><span className="drover-mono">{object.playbook || '–'}</span></DetailItem>
          <DetailItem name="scm_revision" term="Revision"><span className="drover-mono">{object.scm_revision || '–'}</span></DetailItem>
          <DetailItem name="severity_threshold" term="Threshold"><ScanSeverity severity={object.severity_threshold} /></DetailItem>
          <DetailItem name="enforcement" term="Enforcement">{object.enforcement}</DetailItem>
          <DetailItem name="finding_count" term="Findings">{`${object.finding_count}, ${object.blocking_count} at or above the threshold`}</DetailItem>
          <DetailItem name="cached" term="Cached">{object.cached ? 'Yes: read from the scan cache' : 'No'}</DetailItem>
          <DetailItem name="duration_ms" term="Duration">{`${object.duration_ms} ms`}</DetailItem>
        </DescriptionList>
        <DetailSection title="Summary">
          <p>{object.summary || '–'}</p>
        </DetailSection>
        <DetailSection title="Findings">
          {findings.length ? <ScanFindingsTable findings={findings} source={source} /> : <p className="pf-v6-u-color-200">No findings.</p>}
        </DetailSection>
      </PageSection>
    </>
  );
}
