import { Link } from 'react-router';
import { DescriptionList, Flex, FlexItem, PageSection, Title } from '@patternfly/react-core';
import type { ResourceObject } from '../../api/types';
import type { ResourceConfig } from '../../resources/types';
import { Breadcrumbs } from '../../components/Breadcrumbs';
import { formatDate } from '../../components/cells';
import { DetailItem, DetailSection } from '../event-rules/DetailItem';
import { JsonTree } from '../event-rules/JsonTree';
import { DecisionLabel } from './policy-cells';

const RUN_PAGES: Record<string, string> = { job_template: 'jobs', workflow_job_template: 'workflow_jobs', ad_hoc_command: 'ad_hoc_commands' };

/** One policy decision: what it decided about which launch, and the context document the engine evaluated. */
export default function DecisionPage({ object, config }: { object: ResourceObject<'policy_decisions'>; config: ResourceConfig }) {
  const organization = object.summary_fields?.organization as { id: number; name?: string } | undefined;
  const user = object.summary_fields?.user as { id: number; username?: string } | undefined;
  const title = `${String(object.policy_name)} #${object.id}`;
  const run = object.unified_job
    ? object.decision === 'deny'
      ? `#${String(object.unified_job)} (denied: never started)`
      : <Link to={`/${RUN_PAGES[String(object.resource_type)] ?? 'unified_jobs'}/${String(object.unified_job)}`}>#{String(object.unified_job)}</Link>
    : '–';
  return (
    <>
      <PageSection>
        <Breadcrumbs config={config} object={{ ...object, name: title }} />
        <Flex alignItems={{ default: 'alignItemsCenter' }} spaceItems={{ default: 'spaceItemsMd' }}>
          <FlexItem><Title headingLevel="h1">{title}</Title></FlexItem>
          <FlexItem><DecisionLabel decision={object.decision} /></FlexItem>
        </Flex>
      </PageSection>
      <PageSection>
        <DescriptionList isCompact columnModifier={{ default: '1Col', md: '2Col', xl: '3Col' }} aria-label="Details">
          <DetailItem name="decision" term="Decision"><DecisionLabel decision={object.decision} /></DetailItem>
          <DetailItem name="policy" term="Policy">{object.policy ? <Link to={`/policies/${String(object.policy)}`}>{String(object.policy_name)}</Link> : `${String(object.policy_name)} (deleted)`}</DetailItem>
          <DetailItem name="created" term="When">{formatDate(object.created)}</DetailItem>
          <DetailItem name="resource_type" term="Launch of">{String(object.resource_type).replace(/_/g, ' ')}</DetailItem>
          <DetailItem name="unified_job" term="Run">{run}</DetailItem>
          <DetailItem name="user" term="Launched by">{user ? <Link to={`/users/${user.id}`}>{user.username}</Link> : '–'}</DetailItem>
          <DetailItem name="organization" term="Organization">{organization ? <Link to={`/organizations/${organization.id}`}>{organization.name}</Link> : '–'}</DetailItem>
        </DescriptionList>
        <DetailSection title="Message">
          <pre className="drover-json">{String(object.message || '–')}</pre>
        </DetailSection>
        <DetailSection title="Context">
          <div className="drover-json-frame"><JsonTree value={object.context ?? null} label="Context" /></div>
        </DetailSection>
      </PageSection>
    </>
  );
}
