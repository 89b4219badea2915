import { Link } from 'react-router';
import {
  DescriptionList,
  DescriptionListDescription,
  DescriptionListGroup,
  DescriptionListTerm,
  Label,
  LabelGroup,
  PageSection,
  Title,
} from '@patternfly/react-core';
import type { ResourceObject } from '../../api/types';
import type { ResourceConfig } from '../../resources/types';
import { Breadcrumbs } from '../../components/Breadcrumbs';
import { DetailHeader } from '../../components/DetailHeader';
import { formatDate } from '../../components/cells';
import { BeforeAfter } from './BeforeAfter';
import { CategoryLabel, SeverityLabel } from './DriftLabels';
import AcknowledgeAction from './AcknowledgeAction';
import type { DriftDetail } from './drift-api';

interface Named {
  id: number;
  name?: string;
  username?: string;
}

const summaryOf = (object: ResourceObject<'drift_detections'>, field: string) => object.summary_fields?.[field] as Named | undefined;

/** One drift detection: where and when it was found, who acknowledged it, and the fact before and after. */
export default function DriftDetectionPage({ object, config }: { object: ResourceObject<'drift_detections'>; config: ResourceConfig }) {
  const host = summaryOf(object, 'host');
  const inventory = summaryOf(object, 'inventory');
  const job = summaryOf(object, 'job');
  const acknowledgedBy = summaryOf(object, 'acknowledged_by');
  const detail = (object.detail ?? { before: null, after: null, diff_type: object.diff_type }) as DriftDetail;
  const factPath = object.fact_path;
  return (
    <>
      <PageSection>
        <Breadcrumbs config={config} object={{ ...object, name: `${factPath} on ${host?.name ?? `host ${String(object.host)}`}` }} />
        <DetailHeader
          title={factPath}
          labels={
            <LabelGroup aria-label="Classification">
              <SeverityLabel severity={object.severity} />
              <CategoryLabel category={object.category} />
              <Label isCompact variant="outline">{String(object.diff_type)}</Label>
            </LabelGroup>
          }
          actions={<AcknowledgeAction object={object} variant="detail" />}
        />
      </PageSection>
      <PageSection>
        <DescriptionList isCompact columnModifier={{ default: '1Col', md: '2Col', xl: '3Col' }} aria-label="Details">
          <Item name="host" term="Host">{host ? <Link to={`/hosts/${host.id}/drift`}>{host.name}</Link> : '–'}</Item>
          <Item name="inventory" term="Inventory">{inventory ? <Link to={`/inventories/${inventory.id}`}>{inventory.name}</Link> : '–'}</Item>
          <Item name="created" term="Detected at">{formatDate(object.created)}</Item>
          <Item name="job" term="Job">{job ? <Link to={`/jobs/${job.id}`}>{`${job.id} - ${job.name ?? ''}`}</Link> : '–'}</Item>
          <Item name="summary" term="Summary">{String(object.summary || '–')}</Item>
          <Item name="acknowledged" term="Acknowledged">
            {object.acknowledged ? `By ${acknowledgedBy?.username ?? 'a deleted user'} at ${formatDate(object.acknowledged_at)}` : 'Not yet'}
          </Item>
        </DescriptionList>
      </PageSection>
      <PageSection>
        <Title headingLevel="h2" size="lg" style={{ marginBottom: '0.5rem' }}>Before and after</Title>
        <BeforeAfter detail={detail} label={`${factPath} before and after`} />
      </PageSection>
    </>
  );
}

function Item({ name, term, children }: { name: string; term: string; children: React.ReactNode }) {
  return (
    <DescriptionListGroup>
      <DescriptionListTerm>{term}</DescriptionListTerm>
      <DescriptionListDescription data-field={name}>{children}</DescriptionListDescription>
    </DescriptionListGroup>
  );
}
