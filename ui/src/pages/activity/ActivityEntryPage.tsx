import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { DescriptionList, DescriptionListDescription, DescriptionListGroup, DescriptionListTerm, PageSection } from '@patternfly/react-core';
import type { ResourceObject } from '../../api/types';
import type { ResourceConfig } from '../../resources/types';
import { ActivityObjects } from '../../components/ActivityObjects';
import { Breadcrumbs } from '../../components/Breadcrumbs';
import { DetailHeader } from '../../components/DetailHeader';
import { formatDate } from '../../components/cells';

type Entry = ResourceObject<'activity_stream'>;

function Detail({ term, field, children }: { term: string; field: string; children: ReactNode }) {
  return (
    <DescriptionListGroup>
      <DescriptionListTerm>{term}</DescriptionListTerm>
      <DescriptionListDescription data-field={field}>{children}</DescriptionListDescription>
    </DescriptionListGroup>
  );
}

/**
 * /activity_stream/<id>: one entry as AWX's event detail shows it: when, who, what was done to
 * which objects (by name, linked, as in the list) and the changes.
 */
export default function ActivityEntryPage({ object, config }: { object: Entry; config: ResourceConfig }) {
  const actor = object.summary_fields?.actor as { id?: number; username?: string } | undefined;
  const changes = object.changes && Object.keys(object.changes).length ? JSON.stringify(object.changes, null, 2) : '';
  return (
    <>
      <PageSection>
        <Breadcrumbs config={config} object={object} />
        <DetailHeader title={`Activity #${object.id}`} actions={null} />
      </PageSection>
      <PageSection>
        <DescriptionList isCompact aria-label="Details">
          <Detail term="Time" field="timestamp">{formatDate(object.timestamp)}</Detail>
          <Detail term="Initiated by" field="actor">{actor?.id ? <Link to={`/users/${actor.id}`}>{actor.username ?? `#${actor.id}`}</Link> : 'system'}</Detail>
          <Detail term="Operation" field="operation">{object.operation}</Detail>
          <Detail term="Objects" field="objects"><ActivityObjects entry={object} /></Detail>
          {object.object_association ? <Detail term="Association" field="object_association">{object.object_association}</Detail> : null}
          {object.action_node ? <Detail term="Node" field="action_node">{object.action_node}</Detail> : null}
          <Detail term="Changes" field="changes">
            {changes ? <pre className="drover-mono" style={{ whiteSpace: 'pre-wrap', margin: 0 }}>{changes}</pre> : 'None'}
          </Detail>
        </DescriptionList>
      </PageSection>
    </>
  );
}
