import { PageSection, Title } from '@patternfly/react-core';
import { ResourceList } from '../../components/ResourceList';
import { APPROVALS } from './request-lists';
import './portal.css';

/** /approvals: the pending requests the user may decide, with Approve and Reject on each. */
export default function ApprovalsPage() {
  return (
    <>
      <PageSection>
        <Title headingLevel="h1">Approvals</Title>
      </PageSection>
      <PageSection>
        <ResourceList config={APPROVALS} url="/api/v2/service_requests/pending_approvals/" refetchInterval={30_000} />
      </PageSection>
    </>
  );
}
